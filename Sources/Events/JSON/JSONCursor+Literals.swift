extension JSONCursor {
  /// Consumes `literal` if the bytes at the current position (no whitespace skipped) are exactly
  /// it, and returns whether they were. For fixed-layout text such as the log's envelope prefix.
  @inlinable
  public mutating func consume(_ literal: StaticString) -> Bool {
    matchLiteral(literal)
  }

  /// The byte at the current position, without skipping whitespace; `nil` at the end.
  @inlinable
  public var currentByte: UInt8? {
    position < end ? base[position] : nil
  }
}
