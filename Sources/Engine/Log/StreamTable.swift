@_spi(Tables) import Events

/// Every stream's line offsets, looked up by the stream name's bytes.
///
/// The writer's index records a stream for every line of the log when it opens one; a
/// `Dictionary<String, …>` would make a `String` and a SipHash per line, and would take two
/// names that differ in bytes but are canonically equivalent text for one stream. This table
/// finds the name's bytes straight from the line (a `ByteKeyedTable`) and makes a `String`
/// only for a stream it has not seen.
struct StreamTable {
  /// One stream: its name and its lines' offsets in version order.
  struct Entry {
    var name: String
    var offsets: [Int64]
    /// The stream's version before its first offset here (its events in a saved index).
    var baseVersion: Int64
  }

  /// A stream's name, which the table keys it by (compared as bytes).
  struct Name: UTF8Identifier {
    var rawValue: String
  }

  /// The streams' names, in the order they first appeared.
  private var names: [Name] = []
  /// Each stream's offsets, at its name's position.
  private var offsetLists: [[Int64]] = []
  /// Each stream's version before its first offset here, at its name's position.
  private var baseVersions: [Int64] = []
  /// Each stream's position in `names`.
  private var positions = ByteKeyedTable<Name>(minimumCapacity: 512)

  /// The streams, in the order they first appeared.
  var entries: [Entry] {
    names.indices.map {
      Entry(name: names[$0].rawValue, offsets: offsetLists[$0], baseVersion: baseVersions[$0])
    }
  }

  /// The number of streams.
  var count: Int { names.count }

  /// A stream's entry, or `nil` when it has no events here.
  func entry(of name: String) -> Entry? {
    var name = name
    return name.withUTF8 { bytes in
      positions.position(ofBytes: UnsafeRawBufferPointer(bytes), in: names).map {
        Entry(name: names[$0].rawValue, offsets: offsetLists[$0], baseVersion: baseVersions[$0])
      }
    }
  }

  /// Appends `offset` to the stream named by `bytes` (valid UTF-8, unescaped), creating it
  /// with `name()` and `baseVersion()` (its version before this table) when it is new; returns
  /// the stream's version before the append.
  @discardableResult
  mutating func append(
    _ offset: Int64, toStreamNamed bytes: UnsafeBufferPointer<UInt8>, name: () -> String,
    baseVersion: (UnsafeRawBufferPointer) -> Int64 = { _ in 0 }
  ) -> Int64 {
    let raw = UnsafeRawBufferPointer(bytes)
    let end = names.count
    let index = positions.position(
      ofBytes: raw, hash: Self.hash(bytes), in: names, insertingAt: end)
    if index == end {
      let base = baseVersion(raw)
      names.append(Name(rawValue: name()))
      offsetLists.append([offset])
      baseVersions.append(base)
      return base
    }
    let previous = baseVersions[index] + Int64(offsetLists[index].count)
    offsetLists[index].append(offset)
    return previous
  }

  /// The hash the table gives a stream name's bytes.
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    ByteKeyedTable<Name>.hash(UnsafeRawBufferPointer(bytes))
  }
}
