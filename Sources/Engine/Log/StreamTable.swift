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
  }

  /// A stream's name, which the table keys it by (compared as bytes).
  struct Name: UTF8Identifier {
    var rawValue: String
  }

  /// The streams' names, in the order they first appeared.
  private var names: [Name] = []
  /// Each stream's offsets, at its name's position.
  private var offsetLists: [[Int64]] = []
  /// Each stream's position in `names`.
  private var positions = ByteKeyedTable<Name>(minimumCapacity: 512)

  /// The streams, in the order they first appeared.
  var entries: [Entry] {
    zip(names, offsetLists).map { Entry(name: $0.rawValue, offsets: $1) }
  }

  /// The number of streams.
  var count: Int { names.count }

  /// A stream's offsets, or `nil` when it has no events.
  func offsets(of name: String) -> [Int64]? {
    var name = name
    return name.withUTF8 { bytes in
      positions.position(ofBytes: UnsafeRawBufferPointer(bytes), in: names).map {
        offsetLists[$0]
      }
    }
  }

  /// The stream's version: how many events it has.
  func version(of name: String) -> Int64 {
    Int64(offsets(of: name)?.count ?? 0)
  }

  /// Appends `offset` to the stream named by `bytes` (valid UTF-8, unescaped), creating it
  /// with `name()` when it is new; returns the stream's version before the append.
  @discardableResult
  mutating func append(
    _ offset: Int64, toStreamNamed bytes: UnsafeBufferPointer<UInt8>, name: () -> String
  ) -> Int64 {
    let raw = UnsafeRawBufferPointer(bytes)
    let end = names.count
    let index = positions.position(
      ofBytes: raw, hash: Self.hash(bytes), in: names, insertingAt: end)
    if index == end {
      names.append(Name(rawValue: name()))
      offsetLists.append([offset])
      return 0
    }
    let previous = Int64(offsetLists[index].count)
    offsetLists[index].append(offset)
    return previous
  }

  /// Appends `offset` to the stream `name`.
  mutating func append(_ offset: Int64, toStream name: String) {
    var utf8 = name
    utf8.withUTF8 { bytes in
      _ = append(offset, toStreamNamed: bytes, name: { name })
    }
  }

  /// The hash the table gives a stream name's bytes.
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    ByteKeyedTable<Name>.hash(UnsafeRawBufferPointer(bytes))
  }
}
