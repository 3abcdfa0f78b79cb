import Events

/// An entity's id as the `entries` views key it: its text, equal to another exactly when their
/// UTF-8 bytes are (`"é"` and `"e\u{301}"` are two entities, as they are two streams in the log).
public struct EntityKey: UTF8Identifier, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The id as written.
  public let rawValue: String

  /// The key of the entity whose id is `rawValue`.
  public init(_ rawValue: String) {
    self.rawValue = rawValue
  }

  public init(stringLiteral value: String) {
    rawValue = value
  }

  public var description: String { rawValue }
}
