/// Text used as a key, equal, hashed and ordered by its UTF-8 bytes (`UTF8Identifier`): the
/// key type of the read models' `entries` views (`EntityKey`) and of several streams' histories
/// (`StreamName`). `"é"` written as one scalar and as `e` plus a combining accent are two keys,
/// as they are two entities and two streams in the log; `String` keys would merge them.
public struct UTF8Key: UTF8Identifier, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The text as written.
  public let rawValue: String

  /// The key whose text is `rawValue`.
  public init(_ rawValue: String) {
    self.rawValue = rawValue
  }

  public init(stringLiteral value: String) {
    rawValue = value
  }

  public var description: String { rawValue }
}
