import Dispatch
import Engine
@_spi(Tables) import Events
import Foundation

/// The stage an import is at, for progress reports.
package enum ImportPhase: String, Sendable, Equatable {
  /// Turning the source's records into validated domain records.
  case parsing
  /// Reading the affected streams and deciding each record's events.
  case planning
  /// Appending the events.
  case writing
}

/// Reports progress: the phase, how many items are done, and how many there are in all. Called
/// every `SourceParser.progressInterval` items and once at the end of a phase.
package typealias ImportProgressHandler = @Sendable (ImportPhase, _ done: Int, _ total: Int) -> Void

/// Reads a source of any kind into validated records.
package enum SourceParser {
  /// How many records pass between progress reports.
  static let progressInterval = 1000

  /// What changes how a source is read.
  public struct Options: Sendable {
    /// Observations: the zone of dates written without one (`2017-06-14 18:00`).
    public var timeZone: TimeZone
    /// Whether the source came from a URL (error messages say so).
    public var isRemote: Bool
    /// Locations: the member of a Feature's `properties` holding its id, when the Feature has
    /// no `id` of its own (`--id-property`).
    public var idProperty: String?

    public init(
      timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current, isRemote: Bool = false,
      idProperty: String? = nil
    ) {
      self.timeZone = timeZone
      self.isRemote = isRemote
      self.idProperty = idProperty
    }
  }

  /// Parses `bytes` as a source of `kind` named `sourceName` (what the events' `source` field
  /// holds: a file's last path component, or the URL).
  ///
  /// Every record is checked; a bad one becomes a `RecordProblem` and the others are still
  /// read, so the result lists everything wrong at once.
  /// - Throws: `ImportError` when the source as a whole cannot be read: not JSON (or, for
  ///   states, not a property list either), or not laid out as `kind`'s sources are.
  /// - Complexity: O(n) in the source's size.
  public static func parse(
    _ bytes: [UInt8], kind: ImportKind, sourceName: String, options: Options = Options(),
    progress: ImportProgressHandler? = nil
  ) throws(ImportError) -> ParsedSource {
    // The source's digest (for the correlation id) is hashed beside the parse: at about
    // 320 MB/s here, a tenth of a contacts import. A small source is hashed at once.
    let digest = PendingResult<[UInt8], Never>()
    if bytes.count >= 1 << 16 {
      DispatchQueue.global().async { digest.fill(.success(SHA256.hash(bytes))) }
    } else {
      digest.fill(.success(SHA256.hash(bytes)))
    }
    let document =
      kind == .states
      ? try SourceDocument.jsonOrPropertyList(
        bytes, source: sourceName, isRemote: options.isRemote)
      : try SourceDocument.json(bytes, source: sourceName, isRemote: options.isRemote)
    var collector = Collector(kind: kind, sourceName: sourceName, progress: progress)
    switch kind {
    case .observations:
      try ObservationSourceParser.parse(document, into: &collector, timeZone: options.timeZone)
    case .states:
      try StateSourceParser.parse(document, into: &collector)
    case .zoo:
      try ZooSourceParser.parse(document, into: &collector)
    case .locations:
      try LocationSourceParser.parse(document, idProperty: options.idProperty, into: &collector)
    case .contacts:
      try ContactSourceParser.parse(document, into: &collector)
    }
    collector.resolveRepeatedStreams()
    progress?(.parsing, collector.recordCount, collector.recordCount)
    return ParsedSource(
      kind: kind, sourceName: sourceName, sourceDigest: digest.wait(orElse: SHA256.hash(bytes)),
      recordCount: collector.recordCount, records: collector.records,
      problems: collector.problems, notes: collector.notes)
  }

  /// The records of a source as it fills in.
  struct Collector {
    let kind: ImportKind
    let sourceName: String
    let progress: ImportProgressHandler?
    var recordCount = 0
    var records: [SourceRecord] = []
    var problems: [RecordProblem] = []
    var notes: [String] = []

    /// The error for a document that is not laid out as this kind of source is: what was
    /// `expected`, and the layout `document` has.
    func unexpectedLayout(_ document: JSONValue, expected: String) -> ImportError {
      .unexpectedLayout(
        source: sourceName, kind: kind, expected: expected,
        found: SourceDocument.describeLayout(document))
    }

    /// Sets how many records the source holds, before they are read.
    mutating func expect(_ count: Int) {
      recordCount = count
      records.reserveCapacity(count)
    }

    /// Walks a source's records: sets how many there are, reads each element as a record's
    /// fields (one that is not an object is a problem, and skipped), calls `body` with the
    /// collector, the record's 1-based index and its fields, and reports progress after each.
    mutating func forEachRecord(
      _ elements: [JSONValue], expected: String,
      _ body: (inout Collector, Int, inout RecordFields) -> Void
    ) {
      expect(elements.count)
      for (offset, element) in elements.enumerated() {
        let index = offset + 1
        defer { advanced(to: index) }
        let reading = RecordFields.reading(element, kind: kind, index: index, expected: expected)
        guard var fields = reading.fields else {
          if let problem = reading.problem { problems.append(problem) }
          continue
        }
        body(&self, index, &fields)
      }
    }

    /// Adds a valid record.
    mutating func add(_ command: RecordCommand, index: Int, label: String?) {
      records.append(
        SourceRecord(
          index: index, label: label, command: command,
          digest: ImportIdentity.recordDigest(command)))
    }

    /// Reports progress after record `index`.
    func advanced(to index: Int) {
      if index % SourceParser.progressInterval == 0 { progress?(.parsing, index, recordCount) }
    }

    /// Resolves records that import into the same stream as another one.
    ///
    /// States merge: each record's zip codes are added in turn (the import rule only ever
    /// adds), which a re-import repeats without change. For every other kind a record replaces
    /// the stream's whole imported version, so deciding both would flip the entity back and
    /// forth on every re-import: the last record wins, and the earlier ones are left out with a
    /// note.
    mutating func resolveRepeatedStreams() {
      // Streams keyed by their bytes, as the log keys them: two names that differ in bytes
      // are two streams even when they compare equal as text.
      var streams = ByteNameTable()
      var lastPosition: [Int] = []
      var firstRecord: [Int] = []
      var streamOfRecord: [Int] = []
      streamOfRecord.reserveCapacity(records.count)
      for (position, record) in records.enumerated() {
        let name = record.command.streamName
        var utf8 = name
        let stream = utf8.withUTF8 { streams.position(of: $0, name: { name }) }
        if stream == lastPosition.count {
          lastPosition.append(position)
          firstRecord.append(record.index)
        }
        lastPosition[stream] = position
        streamOfRecord.append(stream)
      }
      guard lastPosition.count < records.count else { return }
      if kind == .states {
        for (position, record) in records.enumerated() {
          let first = firstRecord[streamOfRecord[position]]
          guard first != record.index else { continue }
          notes.append(
            "\(record.name(kind)) repeats the state of record \(first); "
              + "its zip codes are added to that state's")
        }
        return
      }
      var kept: [SourceRecord] = []
      kept.reserveCapacity(lastPosition.count)
      for (position, record) in records.enumerated() {
        let last = lastPosition[streamOfRecord[position]]
        guard last != position else {
          kept.append(record)
          continue
        }
        notes.append(
          "\(record.name(kind)) is left out: record \(records[last].index) imports into the same "
            + "stream ('\(record.command.streamName)') and, coming later, replaces it")
      }
      records = kept
    }
  }

  /// The elements of `value`'s array at `path` (a key per level), or of `value` itself when it
  /// is an array; `nil` when neither holds an array.
  static func array(in value: JSONValue, at path: [String]) -> [JSONValue]? {
    if case .array(let elements) = value { return elements }
    var current = value
    for key in path {
      guard let next = current[key] else { return nil }
      current = next
    }
    return current.arrayValue
  }
}
