import Events
import Foundation

/// A read model: the state one app's screens show, folded from the whole log's events.
///
/// A read model is a pure fold: `init()` is the state before any event, and `apply` changes it
/// in place for one event; nothing reads a clock, a file or the network. Replaying the same
/// events always gives an equal state.
///
/// `apply` is the hot path of replay (millions of events): it looks the entity up by id and
/// changes it in place. It never sorts, formats or calls Foundation; views do that when asked.
/// An event that does not fit the state (an update of an entity never added, which the deciders
/// never produce) changes nothing; an event of another domain is skipped after one `switch`.
public protocol ReadModel: Sendable, Equatable {
  /// The model's stable name, used by the CLI and in checkpoints (`contacts`).
  static var name: String { get }

  /// The version of the model's checkpoint encoding. It goes up whenever the encoding changes;
  /// a checkpoint of another version is refused (and rebuilt from the log).
  static var checkpointVersion: Int { get }

  /// The state before any event.
  init()

  /// Folds one event into the state.
  /// - Parameters:
  ///   - event: any domain's event; other domains' events change nothing.
  ///   - context: where the event sits in the log.
  /// - Complexity: O(1) on average for every model (one hash lookup and an in-place change).
  mutating func apply(_ event: DomainEvent, at context: EventContext)

  /// The number of entities the model holds.
  var count: Int { get }

  /// The JSON the model's screens are built from, in the shape the model documents.
  /// - Parameters:
  ///   - writer: where the JSON goes.
  ///   - options: the locale and time zone for text that depends on them (only observations
  ///     format dates; the other models ignore `options`).
  func encode(to writer: inout JSONWriter, options: ViewOptions)

  /// Every entity as named fields, keyed by entity id: what diffs and audits compare.
  var entries: [EntityKey: ReadModelEntry] { get }

  /// One entity as named fields, or `nil` when the model has no entity `id`.
  /// - Complexity: O(1) on average: cheap enough to call after every event of one stream.
  func entry(forID id: String) -> ReadModelEntry?

  /// Writes the state in the model's checkpoint encoding.
  func write(to writer: inout BinaryWriter)

  /// Reads a state written by `write(to:)`; `decode(encode(m)) == m` for every state.
  /// - Throws: `ProjectionsError` when the bytes are truncated or not a valid state.
  init(from reader: inout BinaryReader) throws(ProjectionsError)
}

extension ReadModel {
  /// Writes the model's JSON with the default ``ViewOptions`` (`en_US`, UTC).
  public func encode(to writer: inout JSONWriter) {
    encode(to: &writer, options: .default)
  }

  /// The model's JSON as text.
  public func jsonText(options: ViewOptions = .default) -> String {
    var writer = JSONWriter(capacity: 4096)
    encode(to: &writer, options: options)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  /// The state in the checkpoint encoding (no envelope; see ``ReadModelCheckpoint`` for files).
  /// - Parameter personalDataInClear: contacts' personal data in clear even where it came
  ///   from sealed events (``BinaryWriter/writesPersonalDataInClear``): for comparisons in
  ///   memory only.
  public func checkpointBytes(personalDataInClear: Bool = false) -> [UInt8] {
    var writer = BinaryWriter()
    writer.writesPersonalDataInClear = personalDataInClear
    write(to: &writer)
    return writer.bytes
  }

  /// Reads a state from exactly `bytes`, as `checkpointBytes()` wrote them.
  /// - Throws: `ProjectionsError` when the bytes are truncated, longer, or not a valid state.
  public init(checkpointBytes bytes: [UInt8]) throws(ProjectionsError) {
    var reader = BinaryReader(bytes)
    try self.init(from: &reader)
    try reader.expectEnd("'\(Self.name)' state")
  }
}

/// Where an event sits in the log: what a read model may know about an event besides its
/// payload.
public struct EventContext: Sendable, Equatable, Hashable {
  /// The event's global position (`seq`), from 1.
  public var sequence: Int64
  /// Its position within its stream (`version`), from 1.
  public var streamVersion: Int64
  /// When it was appended (`at`).
  public var timestamp: Timestamp

  /// A context from its parts.
  public init(sequence: Int64, streamVersion: Int64, timestamp: Timestamp) {
    self.sequence = sequence
    self.streamVersion = streamVersion
    self.timestamp = timestamp
  }

  /// No position: for folding a model's own events outside a log (`seq` 0, version 0, the
  /// earliest instant). Only the zoo's catalogue reads the context, to place new animals.
  public static let unpositioned = EventContext(sequence: 0, streamVersion: 0, timestamp: .earliest)

  /// The context of a recorded event.
  public init(_ event: RecordedEvent) {
    self.init(
      sequence: event.sequence, streamVersion: event.version, timestamp: event.timestamp)
  }
}

/// What a view needs to render text that depends on the reader: the locale and time zone of
/// dates (observations). Views that show no such text ignore it.
public struct ViewOptions: Sendable, Equatable {
  /// The locale dates are formatted for.
  public var locale: Locale
  /// The time zone dates are shown in.
  public var timeZone: TimeZone

  /// Options for `locale` and `timeZone`.
  public init(locale: Locale, timeZone: TimeZone) {
    self.locale = locale
    self.timeZone = timeZone
  }

  /// `en_US` in UTC: `Jun 14, 2017 at 6:00:00 PM`.
  public static let `default` = ViewOptions(locale: Locale(identifier: "en_US"), timeZone: .gmt)
}
