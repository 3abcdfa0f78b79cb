@_spi(Tables) import Events

extension LogVerifier {
  /// The distinct names a log holds (its streams, or its event types), found by their bytes,
  /// each with a value the verifier keeps for it: a name's `String`, what `EnvelopeRules` says
  /// of it and its first value are made once per name, not once per line (a `Dictionary` keyed
  /// by `String` made and hashed both for every line, about 2 500 instructions a line for the
  /// streams alone).
  struct Names<Value> {
    /// The names, in the order they first appeared.
    private(set) var names: [StreamTable.Name] = []
    /// What is wrong with each name (`nil`: nothing), at its position.
    private(set) var problems: [String?] = []
    /// Each name's value, at its position.
    private var values: [Value] = []
    private var positions = ByteKeyedTable<StreamTable.Name>(minimumCapacity: 64)
    /// The rule a name must follow.
    private let rule: (String) -> String?
    /// A new name's value.
    private let initial: (String) -> Value

    init(rule: @escaping (String) -> String?, initial: @escaping (String) -> Value) {
      self.rule = rule
      self.initial = initial
    }

    var count: Int { names.count }

    /// The value of the name at `position`.
    subscript(position: Int) -> Value {
      get { values[position] }
      set { values[position] = newValue }
    }

    /// The position of the name held by `slice` of `base` (a string the envelope decoder
    /// checked), recording it if it is new.
    mutating func position(of slice: JSONStringSlice, in base: UnsafePointer<UInt8>) -> Int {
      if slice.hasEscapes {
        // Compared as the name it spells, not as its escaped bytes.
        let name = slice.string(base: base)
        var bytes = name
        return bytes.withUTF8 { position(of: $0) { name } }
      }
      return position(
        of: UnsafeBufferPointer(start: base + slice.start, count: slice.end - slice.start)
      ) { slice.string(base: base) }
    }

    // Inlined, so that the bytes' hash is too (a call of its own once `Names` was generic).
    @inline(__always)
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
        values.append(initial(text))
      }
      return found
    }
  }
}
