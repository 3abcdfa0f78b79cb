/// Readers for text laid out exactly as this project's own writer lays it out: no whitespace,
/// keys in a fixed order, strings without escapes. Each says "not this shape" (returns `nil` or
/// false) instead of throwing, so that a caller can try the fixed layout first and fall back to
/// the general reader on anything unexpected. None of them skips whitespace.
extension JSONCursor {
  /// Consumes `literal` when the next bytes are exactly it; otherwise leaves the cursor alone.
  ///
  /// Meant to be inlined with a literal argument: the byte comparisons then fold into a few
  /// word comparisons against constants.
  @inlinable @inline(__always)
  mutating func skipExactly(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard end - position >= count else { return false }
    let source = base + position
    let expected = literal.utf8Start
    for index in 0..<count where source[index] != expected[index] {
      return false
    }
    position += count
    return true
  }

  /// Reads a string (the cursor at its opening quote) whose content has no backslash and no
  /// control character, returning where its content lies and whether it is all ASCII; `nil`
  /// for anything else.
  @inlinable @inline(__always)
  mutating func plainStringContent() -> (start: Int, count: Int, isASCII: Bool)? {
    guard position < end, base[position] == 0x22 else { return nil }
    let start = position + 1
    var index = start
    var high: UInt8 = 0
    while index < end {
      let byte = base[index]
      if byte == 0x22 {
        position = index + 1
        return (start, index - start, high < 0x80)
      }
      if byte < 0x20 || byte == 0x5C { return nil }
      high |= byte
      index += 1
    }
    return nil
  }

  /// Reads a string whose content is printable ASCII (space through `~`, no backslash) and
  /// returns where it lies; `nil` for anything else, escapes included.
  @inlinable @inline(__always)
  mutating func printableASCIIContent() -> (start: Int, count: Int)? {
    guard position < end, base[position] == 0x22 else { return nil }
    let start = position + 1
    var index = start
    while index < end {
      let byte = base[index]
      if byte == 0x22 {
        position = index + 1
        return (start, index - start)
      }
      // Outside 0x20...0x7E, or a backslash.
      if byte &- 0x20 > 0x5E || byte == 0x5C { return nil }
      index += 1
    }
    return nil
  }

  /// An identifier as `DomainText.identifierProblem` accepts it without looking at Unicode: 1 to
  /// 200 bytes of printable ASCII that neither starts nor ends with a space. `nil` otherwise,
  /// and the general reader decides.
  @inlinable @inline(__always)
  mutating func plainIdentifier() -> String? {
    guard let (start, count) = plainIdentifierContent() else { return nil }
    return makeString(start: start, count: count)
  }

  /// Where the content of an identifier as `plainIdentifier` reads it lies; `nil` (cursor
  /// untouched) otherwise.
  @inlinable @inline(__always)
  mutating func plainIdentifierContent() -> (start: Int, count: Int)? {
    let saved = position
    guard let (start, count) = printableASCIIContent(), count > 0, count <= 200,
      base[start] != 0x20, base[start + count - 1] != 0x20
    else {
      position = saved
      return nil
    }
    return (start, count)
  }

  /// The string of `count` bytes at offset `start`, exactly as `readString` makes it for
  /// content without escapes: from the short-string cache when the cursor has one.
  @inlinable @inline(__always)
  func makeString(start: Int, count: Int) -> String {
    if let strings, count <= StringCache.maximumLength,
      start + StringCache.maximumLength <= end + readableSlack
    {
      return strings._withUnsafeGuaranteedRef { $0.string(base + start, count: count) }
    }
    return String(decoding: UnsafeBufferPointer(start: base + start, count: count), as: UTF8.self)
  }

  /// The bytes of a string's content.
  @inlinable @inline(__always)
  func contentBytes(start: Int, count: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base + start, count: count)
  }
}
