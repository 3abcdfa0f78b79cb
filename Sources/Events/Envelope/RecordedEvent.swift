/// Who caused an event and why: the audit trail's fields, all optional.
public struct EventMetadata: Sendable, Equatable, Hashable {
  /// Who made the change (a user name, a service, an importer).
  public var actor: String?
  /// Why, in the actor's words.
  public var reason: String?
  /// An id shared by every event of one business operation.
  public var correlation: String?
  /// The id of the event or command that caused this one.
  public var causation: String?

  public init(
    actor: String? = nil, reason: String? = nil, correlation: String? = nil,
    causation: String? = nil
  ) {
    self.actor = actor
    self.reason = reason
    self.correlation = correlation
    self.causation = causation
  }

  /// Whether no field is set (the log then omits `meta`).
  public var isEmpty: Bool {
    actor == nil && reason == nil && correlation == nil && causation == nil
  }

  /// The keys `meta` may hold, in the order the log writes them.
  public static let keys = ["actor", "reason", "correlation", "causation"]
}

/// How a stream must stand for an append to go ahead (optimistic concurrency).
public enum ExpectedVersion: Sendable, Equatable, Hashable, CustomStringConvertible {
  /// Append whatever the stream's version.
  case any
  /// The stream must not exist yet.
  case noStream
  /// The stream's last event must have exactly this version (0 means it must not exist).
  case exactly(Int64)

  /// Whether a stream at `actual` (0 when it has no events) satisfies this expectation.
  public func isSatisfied(byStreamVersion actual: Int64) -> Bool {
    switch self {
    case .any: true
    case .noStream: actual == 0
    case .exactly(let version): actual == version
    }
  }

  /// Parses `any`, `no-stream` or a whole number ≥ 0; `nil` otherwise.
  public init?(_ text: String) {
    switch text {
    case "any": self = .any
    case "no-stream", "noStream", "no_stream": self = .noStream
    default:
      guard let version = Int64(text), version >= 0 else { return nil }
      self = .exactly(version)
    }
  }

  /// `any`, `no-stream` or the number.
  public var description: String {
    switch self {
    case .any: "any"
    case .noStream: "no-stream"
    case .exactly(let version): String(version)
    }
  }
}

/// An event to be appended: everything but what the log assigns (position, version, time).
public struct ProposedEvent: Sendable, Equatable {
  /// The event's id; the log generates one when `nil`. Appending an id that is already in the log
  /// appends nothing (idempotency).
  public var id: EventID?
  /// The event type's stable name, e.g. `ContactFavorited`.
  public var type: String
  /// The payload's schema version for its type.
  public var schemaVersion: Int
  /// The payload: one JSON object in compact form (see `JSONWriter`).
  public var data: [UInt8]
  /// Who and why.
  public var metadata: EventMetadata

  public init(
    id: EventID? = nil, type: String, schemaVersion: Int = 1, data: [UInt8],
    metadata: EventMetadata = EventMetadata()
  ) {
    self.id = id
    self.type = type
    self.schemaVersion = schemaVersion
    self.data = data
    self.metadata = metadata
  }
}

/// An event as the log holds it: the envelope and its payload.
public struct RecordedEvent: Sendable, Equatable {
  /// Global position in the log: gapless from 1 (`seq`).
  public var sequence: Int64
  /// The event's id (`id`).
  public var id: EventID
  /// The stream (one entity) it belongs to (`stream`).
  public var stream: String
  /// Its position within the stream, from 1 (`version`).
  public var version: Int64
  /// The event type's stable name (`type`).
  public var type: String
  /// The payload's schema version for its type (`schema`).
  public var schemaVersion: Int
  /// When it was appended, per the log's clock (`at`).
  public var timestamp: Timestamp
  /// The atomic write it was part of, when that wrote more than one event (`batch`).
  public var batch: ClosedRange<Int64>?
  /// Who and why (`meta`).
  public var metadata: EventMetadata
  /// The payload: one JSON object in compact form (`data`).
  public var data: [UInt8]

  public init(
    sequence: Int64, id: EventID, stream: String, version: Int64, type: String,
    schemaVersion: Int = 1, timestamp: Timestamp, batch: ClosedRange<Int64>? = nil,
    metadata: EventMetadata = EventMetadata(), data: [UInt8]
  ) {
    self.sequence = sequence
    self.id = id
    self.stream = stream
    self.version = version
    self.type = type
    self.schemaVersion = schemaVersion
    self.timestamp = timestamp
    self.batch = batch
    self.metadata = metadata
    self.data = data
  }

  /// The payload as text.
  public var dataText: String { String(decoding: data, as: UTF8.self) }
}
