import Events

/// The SHA-256 of a log's prefix: every byte of its lines up to and including one event's
/// line (with its `\n`). A digest written down today proves later that the log still begins
/// with exactly those events: any change to those bytes changes it.
package struct LogDigest: Sendable, Equatable, CustomStringConvertible {
  /// The last event covered.
  public var sequence: Int64
  /// The SHA-256 of the bytes `0..<byteCount`.
  public var sha256: [UInt8]
  /// How many bytes of the log it covers.
  public var byteCount: Int64

  public init(sequence: Int64, sha256: [UInt8], byteCount: Int64) {
    self.sequence = sequence
    self.sha256 = sha256
    self.byteCount = byteCount
  }

  /// `<seq>:<64 hex digits>`, the form `replay verify --digest` takes.
  public var description: String { "\(sequence):\(SHA256.hex(sha256))" }

  /// Parses `<seq>:<64 hex digits>`; `nil` when `text` is not that.
  public static func parse(_ text: String) -> (sequence: Int64, sha256: [UInt8])? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let sequence = Int64(parts[0]), sequence >= 0,
      parts[1].count == 64, let digest = SHA256.bytes(fromHex: parts[1])
    else { return nil }
    return (sequence, digest)
  }

  /// The digest of `reader`'s log through event `sequence` (the last committed event when
  /// `nil`). Every line on the way is checked as any read checks it.
  /// - Throws: `EngineError.invalidEvent` when the log has fewer events than `sequence`;
  ///   `.corruptLine`, `.fileNotFound`, `.io`.
  public static func compute(_ reader: LogReader, through sequence: Int64? = nil) throws
    -> LogDigest
  {
    try compute(
      lines: { _ = try reader.forEachEvent($0) }, location: reader.path, through: sequence)
  }

  /// The digest of the log whose lines `lines` hands out (a file's, or a database's rows'
  /// lines, which are the file's lines byte for byte: so the digest is the file's), through
  /// event `sequence` (the last when `nil`).
  /// - Throws: `EngineError.invalidEvent` naming `location` when the log has fewer events
  ///   than `sequence`; what `lines` throws.
  package static func compute(lines: LineSource, location: String, through sequence: Int64?)
    throws -> LogDigest
  {
    var hasher = SHA256()
    let newline: [UInt8] = [0x0A]
    var covered: Int64 = 0
    var byteCount: Int64 = 0
    try lines { line in
      if let sequence, line.sequence > sequence { return false }
      hasher.update(line.bytes)
      newline.withUnsafeBytes { hasher.update($0) }
      covered = line.sequence
      // Lines follow each other from byte 0: the prefix ends where this line's `\n` does.
      byteCount += Int64(line.length) + 1
      return true
    }
    if let sequence, covered < sequence {
      throw EngineError.invalidEvent(
        location: location,
        problem: "the log has \(covered) events, so it has no prefix through seq \(sequence)")
    }
    return LogDigest(sequence: covered, sha256: hasher.finalize(), byteCount: byteCount)
  }
}
