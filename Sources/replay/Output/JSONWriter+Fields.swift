import Events

/// The members several commands' `--json` share, spelled once (docs/READMODELS.md, "JSON
/// vocabulary"): an absent value is `null`, and a range of seqs is `firstSeq` and `lastSeq`.
extension JSONWriter {
  /// `"key":value`, or `"key":null` when there is none.
  mutating func member(_ key: StaticString, _ value: Int64?) {
    self.key(key)
    if let value { integer(value) } else { null() }
  }

  /// `"key":value` for a count or size, or `"key":null` when there is none.
  mutating func member(_ key: StaticString, _ value: Int?) {
    self.key(key)
    if let value { integer(value) } else { null() }
  }

  /// `"key":true` or `"key":false`.
  mutating func member(_ key: StaticString, _ value: Bool) {
    self.key(key)
    bool(value)
  }

  /// `"key":"value"`, or `"key":null` when there is none.
  mutating func member(_ key: StaticString, _ value: String?) {
    self.key(key)
    if let value { string(value) } else { null() }
  }

  /// `"firstSeq":1,"lastSeq":18`, both `null` when nothing was written.
  mutating func sequenceMembers(_ sequences: ClosedRange<Int64>?) {
    member("firstSeq", sequences?.lowerBound)
    member("lastSeq", sequences?.upperBound)
  }

  /// `"key":{"<name>":<count>, …}` in the order given.
  mutating func counts(_ key: StaticString, _ counts: [(name: String, count: Int)]) {
    self.key(key)
    beginObject()
    for (name, count) in counts {
      self.key(name)
      integer(count)
    }
    endObject()
  }

  /// One object, as `members` writes its members, and a line break: what `--json` prints.
  static func objectLine(_ members: (inout JSONWriter) throws -> Void) rethrows -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    try members(&writer)
    writer.endObject()
    writer.bytes.append(0x0A)
    return writer.bytes
  }
}
