@_spi(Tables) import Events

extension LogVerifier {
  /// The distinct names a log holds (its streams, or its event types), found by their bytes:
  /// a name's `String`, and what `EnvelopeRules` says of it, are made once per name, not once
  /// per line (a `Dictionary` keyed by `String` made and hashed both for every line, about
  /// 2 500 instructions a line for the streams alone).
  struct Names {
    /// The names, in the order they first appeared.
    private(set) var names: [StreamTable.Name] = []
    /// What is wrong with each name (`nil`: nothing), at its position.
    private(set) var problems: [String?] = []
    private var positions = ByteKeyedTable<StreamTable.Name>(minimumCapacity: 64)
    /// The rule a name must follow.
    private let rule: (String) -> String?

    init(rule: @escaping (String) -> String?) {
      self.rule = rule
    }

    var count: Int { names.count }

    /// The position of the name held by `slice` of `base` (a string the envelope decoder
    /// checked), recording it if it is new.
    mutating func position(of slice: JSONStringSlice, in base: UnsafePointer<UInt8>) -> Int {
      if slice.hasEscapes {
        // Compared as the name it spells, not as its escaped bytes.
        var name = slice.string(base: base)
        return name.withUTF8 { position(of: $0) { slice.string(base: base) } }
      }
      return position(
        of: UnsafeBufferPointer(start: base + slice.start, count: slice.end - slice.start)
      ) {
        slice.string(base: base)
      }
    }

    private mutating func position(
      of bytes: UnsafeBufferPointer<UInt8>, name: () -> String
    ) -> Int {
      let raw = UnsafeRawBufferPointer(bytes)
      let end = names.count
      let found = positions.position(
        ofBytes: raw, hash: ByteKeyedTable<StreamTable.Name>.hash(raw), in: names,
        insertingAt: end)
      if found == end {
        let text = name()
        names.append(StreamTable.Name(rawValue: text))
        problems.append(rule(text))
      }
      return found
    }
  }
}
