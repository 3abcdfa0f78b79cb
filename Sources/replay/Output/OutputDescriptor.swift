import Foundation

/// A file descriptor that `Terminal` writes to, every write checked.
///
/// A thin wrapper over `write(2)`: it retries after a signal and after a short write, and
/// reports any other failure with the system's error number.
struct OutputDescriptor: Sendable {
  /// The descriptor, such as `STDOUT_FILENO`.
  let rawValue: Int32
  /// The handle the descriptor belongs to, kept open as long as this value lives (`nil` for
  /// the process's own standard descriptors).
  private let owner: FileHandle?

  /// Wraps a descriptor the process keeps open, such as `STDOUT_FILENO`.
  init(_ rawValue: Int32) {
    self.rawValue = rawValue
    owner = nil
  }

  /// Wraps the descriptor of `handle`, keeping the handle alive.
  init(_ handle: FileHandle) {
    rawValue = handle.fileDescriptor
    owner = handle
  }

  /// Writes all of `bytes`.
  ///
  /// - Parameter bytes: The bytes; nothing is written when empty.
  /// - Throws: `OutputFailure` with the `errno` of the failed write; some of the bytes may have
  ///   been written before it.
  func writeAll(_ bytes: [UInt8]) throws(OutputFailure) {
    var failure: Int32?
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count, let base = buffer.baseAddress {
        let count = write(rawValue, base + offset, buffer.count - offset)
        if count > 0 {
          offset += count
        } else if count < 0, errno == EINTR {
          continue
        } else {
          // A write of nothing for a non-empty buffer would repeat forever: call it an I/O
          // error.
          failure = count < 0 ? errno : EIO
          return
        }
      }
    }
    if let failure { throw OutputFailure(errorNumber: failure) }
  }
}
