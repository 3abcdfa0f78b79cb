/// The check a writer makes before it changes a byte of a file: that the file is a log.
///
/// A writer cuts torn tails and appends lines, so handed a file that is not its log (a JSON
/// document, a text file, binary data) it would destroy it. It accepts only an empty file, a
/// file whose first line decodes as a log line, a file holding nothing but one torn first
/// line (no `\n` yet, beginning as every writer's first line begins, `{"seq":1,"id":"`, or
/// torn within those bytes), or a file whose first line holds the zeros of a torn first write
/// (it begins with zeros, or as a first line does).
enum LogStart {
  /// How far the first `\n` is looked for.
  static let searchLimit = 64 << 20

  /// Throws `EngineError.notALog` unless `file` (of `size` bytes) can be shown to be a log.
  static func check(_ file: FileDescriptor, path: String, size: Int64) throws {
    guard size > 0 else { return }
    var bytes: [UInt8] = []
    var newline: Int?
    let blockSize = 64 << 10
    while newline == nil, Int64(bytes.count) < size, bytes.count < searchLimit {
      let block = try file.readFully(count: blockSize, at: Int64(bytes.count))
      if block.isEmpty { break }
      newline = block.firstIndex(of: 0x0A).map { bytes.count + $0 }
      bytes += block
    }
    guard let newline else {
      if Int64(bytes.count) >= size, startsLikeFirstLine(bytes) || bytes.first == 0 { return }
      let found = bytes.count < searchLimit ? "no complete line" : "no line break in 64 MiB"
      throw EngineError.notALog(
        path: path,
        problem: "it holds \(found), and does not begin as a log's first line ({\"seq\":1,…)")
    }
    try bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      do throws(LogLineCodec.Problem) {
        _ = try LogLineCodec.decode(base, length: newline, lineNumber: 1, offset: 0)
      } catch {
        // A torn first write: zeros where its first pages never landed, or its first line
        // cut short. The tail logic finds the write from its own lines.
        let first = buffer[..<newline]
        if first.contains(0), first.first == 0 || startsLikeFirstLine(Array(first)) { return }
        throw EngineError.notALog(
          path: path,
          problem:
            "its first line is not a log line (\(error.message)); choose another --log, or if it is a damaged log, 'replay verify' lists its problems"
        )
      }
    }
  }

  /// Whether `bytes` begin as the line of seq 1 does: up to their first zero, they begin with
  /// `{"seq":1,"id":"`, or are a start of it (a first write torn within its first bytes).
  static func startsLikeFirstLine(_ bytes: [UInt8]) -> Bool {
    let prefix: StaticString = #"{"seq":1,"id":""#
    let content = bytes.prefix { $0 != 0 }
    guard !content.isEmpty else { return false }
    return prefix.withUTF8Buffer { expected in
      content.count >= expected.count
        ? expected.elementsEqual(content.prefix(expected.count))
        : expected.prefix(content.count).elementsEqual(content)
    }
  }
}
