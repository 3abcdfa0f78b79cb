/// Everything that can go wrong in the read models: reading a checkpoint back.
///
/// Folding events never fails (an event that does not fit a model's state changes nothing), so
/// every case is about checkpoint bytes. Each says where (byte offset), what was expected and what
/// was found; `description` ends with the fix, which is always the same: a checkpoint is a cache,
/// so delete it and the engine rebuilds the state from the log.
public enum ProjectionsError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The bytes ended inside a value: `needed` bytes for `what` at `offset`, `available` left.
  case truncatedCheckpoint(what: String, offset: Int, needed: Int, available: Int)
  /// A value at `offset` is not one the format allows (an unknown tag, a count larger than the
  /// bytes left, invalid UTF-8, a duplicate id, bytes after the end, ...).
  case invalidCheckpoint(what: String, offset: Int, expected: String, found: String)
  /// The checksum stored at the end does not match the bytes before it.
  case checkpointChecksumMismatch(stored: UInt32, computed: UInt32)
  /// The checkpoint (`model` is `"checkpoint"` for the envelope) was written in a format version
  /// this code does not read.
  case unsupportedCheckpointVersion(model: String, expected: Int, found: Int)
  /// A model was asked for that the checkpoint does not hold.
  case modelNotInCheckpoint(name: String, available: [String])

  private static let fix = "delete the checkpoint; it is rebuilt from the log"

  public var description: String {
    switch self {
    case .truncatedCheckpoint(let what, let offset, let needed, let available):
      return "checkpoint byte \(offset): expected \(needed) bytes for \(what), found \(available) "
        + "(the checkpoint is truncated); \(Self.fix)"
    case .invalidCheckpoint(let what, let offset, let expected, let found):
      return "checkpoint byte \(offset): \(what): expected \(expected), found \(found); \(Self.fix)"
    case .checkpointChecksumMismatch(let stored, let computed):
      return "checkpoint checksum mismatch: stored \(Self.hex(stored)), computed "
        + "\(Self.hex(computed)) (the checkpoint is damaged); \(Self.fix)"
    case .unsupportedCheckpointVersion(let model, let expected, let found):
      return "checkpoint '\(model)': expected format version \(expected), found \(found); "
        + Self.fix
    case .modelNotInCheckpoint(let name, let available):
      let list = available.map { "'\($0)'" }.joined(separator: ", ")
      return "checkpoint holds no model '\(name)' (it holds \(list.isEmpty ? "none" : list)); "
        + Self.fix
    }
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }
}
