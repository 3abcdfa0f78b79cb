/// The process's arguments as the bytes the kernel passed, decoded strictly.
///
/// `CommandLine.arguments` repairs invalid UTF-8 with U+FFFD, so `--data` with the bytes
/// `C0 80` (an overlong NUL) would reach the log as `"\u{FFFD}\u{FFFD}"` while `--file` with the
/// same bytes is rejected. Every argument is text: one that is not valid UTF-8 is refused before
/// any command runs, with the same exit status (65) as invalid input in a file.
enum RawArguments {
  /// Why an argument could not be decoded.
  struct InvalidArgument: Error, Equatable {
    /// The argument's position after the program name, from 1.
    var position: Int
    /// The offset of the first byte that is not part of a valid UTF-8 sequence.
    var offset: Int
    /// That byte.
    var byte: UInt8

    var message: String {
      let hex = String(byte, radix: 16, uppercase: true)
      return "argument \(position) is not valid UTF-8: byte 0x\(hex.count == 1 ? "0" + hex : hex) "
        + "at offset \(offset) does not begin a valid sequence (arguments are text; an overlong "
        + "or truncated sequence is not)"
    }
  }

  /// Decodes the arguments after the program name.
  ///
  /// - Parameter arguments: Each argument's bytes, without the terminating NUL.
  /// - Returns: The arguments as strings.
  /// - Throws: `InvalidArgument` for the first argument that is not valid UTF-8.
  static func decode(_ arguments: [[UInt8]]) throws(InvalidArgument) -> [String] {
    var decoded: [String] = []
    decoded.reserveCapacity(arguments.count)
    for (index, bytes) in arguments.enumerated() {
      var parser = Unicode.UTF8.ForwardParser()
      var iterator = bytes.makeIterator()
      var offset = 0
      parsing: while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar):
          offset += scalar.count
        case .emptyInput:
          break parsing
        case .error:
          throw InvalidArgument(
            position: index + 1, offset: offset, byte: offset < bytes.count ? bytes[offset] : 0)
        }
      }
      decoded.append(String(decoding: bytes, as: UTF8.self))
    }
    return decoded
  }

  /// The process's arguments after the program name, as bytes.
  static func processArguments() -> [[UInt8]] {
    (1..<Int(CommandLine.argc)).map { index in
      guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
      var length = 0
      while pointer[length] != 0 { length += 1 }
      return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
      }
    }
  }
}
