import Engine
import Events

/// The rows of one batch in `COPY`'s text format: a row a line, columns separated by tabs, in
/// `Batch.copyStatement`'s order (`Batch.positionedCopyStatement`'s with `positioned`).
struct Batch {
  /// Whether each row starts with its `global_position`, the line's seq (a direct write and a
  /// shipper set it; a shipper resuming a table shipped before that leaves it to the column's
  /// sequence).
  var positioned = false
  var rows: [UInt8] = []
  private(set) var count = 0
  /// The contacts whose sealed personal data the batch holds: their keys go with it.
  private(set) var sealedContacts: Set<String> = []
  /// The contacts the batch erases.
  private(set) var erasedContacts: Set<String> = []
  /// The last event's seq, id and time.
  private(set) var last: (sequence: Int64, id: String, timestamp: Timestamp)?

  /// One statement a batch: `COPY` gives the rows `global_position`s in the order they are sent,
  /// which is seq order.
  static let copyStatement =
    "COPY message_store.messages (id, stream_name, position, type, data, metadata, time)"
    + " FROM STDIN"

  /// `copyStatement` with each row's `global_position` first.
  static let positionedCopyStatement =
    "COPY message_store.messages (global_position, id, stream_name, position, type, data,"
    + " metadata, time) FROM STDIN"

  mutating func append(_ line: EventLine) {
    if positioned {
      JSONWriter.appendDecimal(line.sequence, to: &rows)
      rows.append(CopyText.tab)
    }
    let id = line.id.description
    rows.append(contentsOf: id.utf8)
    rows.append(CopyText.tab)
    CopyText.append(
      line.streamBytes, unescaped: line.streamSlice.hasEscapes ? line.stream : nil, to: &rows)
    rows.append(CopyText.tab)
    JSONWriter.appendDecimal(line.version - 1, to: &rows)
    rows.append(CopyText.tab)
    CopyText.append(
      line.typeBytes, unescaped: line.typeSlice.hasEscapes ? line.type : nil, to: &rows)
    rows.append(CopyText.tab)
    // The payload as stored: sealed personal data stays sealed.
    CopyText.append(line.data, to: &rows)
    rows.append(CopyText.tab)
    let at = UnsafeRawBufferPointer(start: line.base + line.timestampOffset, count: 24)
    // The metadata object, written straight into the row: its keys, numbers and time hold no
    // byte JSON or COPY escapes; its strings go through `CopyText.appendJSONString`.
    rows.append(contentsOf: #"{"seq":"#.utf8)
    JSONWriter.appendDecimal(line.sequence, to: &rows)
    rows.append(contentsOf: #","at":""#.utf8)
    rows.append(contentsOf: at)
    rows.append(contentsOf: #"","schema":"#.utf8)
    JSONWriter.appendDecimal(Int64(line.schemaVersion), to: &rows)
    // The line as written (checksum included), so that a reader of the table gets back the
    // log byte for byte and folds it as a reader of the file does.
    rows.append(contentsOf: #","line":""#.utf8)
    CopyText.appendJSONString(
      UnsafeRawBufferPointer(start: line.base, count: line.length), to: &rows)
    rows.append(UInt8(ascii: "\""))
    if line.metaRange != nil {
      let audit = line.metadata()
      appendMember("actor", audit.actor)
      appendMember("reason", audit.reason)
      appendMember("correlation", audit.correlation)
      appendMember("causation", audit.causation)
    }
    rows.append(UInt8(ascii: "}"))
    rows.append(CopyText.tab)
    // `time` is timestamp without time zone: the `Z` of the log's form is ignored, as it
    // should be (the log's times are UTC).
    rows.append(contentsOf: at)
    rows.append(CopyText.newline)
    count += 1
    last = (line.sequence, id, line.timestamp)
    if line.typeBytes.elementsEqual("ContactErased".utf8),
      line.stream.hasPrefix(Self.contactCategory)
    {
      // The contact's keys were destroyed: they go as destroyed with the event.
      erasedContacts.insert(String(line.stream.dropFirst(Self.contactCategory.count)))
    } else if line.schemaVersion >= 2, Self.isSealable(line.typeBytes),
      line.stream.hasPrefix(Self.contactCategory)
    {
      sealedContacts.insert(String(line.stream.dropFirst(Self.contactCategory.count)))
    }
  }

  /// Appends `,"key":"value"` to the metadata object being written, when there is a value.
  private mutating func appendMember(_ key: StaticString, _ value: String?) {
    guard let value else { return }
    rows.append(UInt8(ascii: ","))
    rows.append(UInt8(ascii: "\""))
    rows.append(
      contentsOf: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    rows.append(contentsOf: #"":"#.utf8)
    CopyText.appendJSONString(value, to: &rows)
  }

  private static let contactCategory = "contact-"

  /// Whether a type carries sealed personal data (schema 2 `ContactAdded`, `ContactUpdated`).
  private static func isSealable(_ type: UnsafeBufferPointer<UInt8>) -> Bool {
    type.elementsEqual("ContactAdded".utf8) || type.elementsEqual("ContactUpdated".utf8)
  }

  mutating func removeAll() {
    rows.removeAll(keepingCapacity: true)
    sealedContacts.removeAll()
    erasedContacts.removeAll()
    count = 0
    last = nil
  }
}
