@_spi(Tables) import Events

/// Names read straight from log lines (streams, types), each given a position the first time
/// its bytes are seen: a `String` is made once per distinct name, not once per line.
package struct ByteNameTable {
  /// The names, in the order they first appeared.
  private(set) var names: [StreamTable.Name] = []
  private var positions = ByteKeyedTable<StreamTable.Name>(minimumCapacity: 64)

  package init() {}

  /// The position of the name whose bytes are `bytes` (valid UTF-8, unescaped), adding it with
  /// `name()` when it is new.
  package mutating func position(of bytes: UnsafeBufferPointer<UInt8>, name: () -> String) -> Int {
    let end = names.count
    let raw = UnsafeRawBufferPointer(bytes)
    let index = positions.position(
      ofBytes: raw, hash: ByteKeyedTable<StreamTable.Name>.hash(raw), in: names,
      insertingAt: end)
    if index == end { names.append(StreamTable.Name(rawValue: name())) }
    return index
  }

  /// The position of a name whose bytes in the line hold escapes (`escaped`) or not.
  package mutating func position(
    of bytes: UnsafeBufferPointer<UInt8>, escaped: Bool, decoded: () -> String
  ) -> Int {
    guard escaped else { return position(of: bytes, name: decoded) }
    let name = decoded()
    var utf8 = name
    return utf8.withUTF8 { position(of: $0, name: { name }) }
  }

  /// The number of names.
  package var count: Int { names.count }

  /// The name at `position`.
  package subscript(position: Int) -> String { names[position].rawValue }
}
