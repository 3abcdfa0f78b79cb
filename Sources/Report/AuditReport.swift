import Engine
import Events
import Foundation
import Projections

/// Everything `replay report` shows, gathered from the log and its sidecars: the read models at
/// one point, a timeline and the changes of a window of events, and what can be said about the
/// log's integrity.
///
/// Built by ``AuditReport/build(replayer:request:)``; rendered by
/// ``AuditReport/html()``. Reads nothing but the log and its sidecars and writes nothing.
package struct AuditReport: Sendable {
  /// The log.
  public var logPath: String
  /// What was asked for.
  public var request: Request
  /// The read models at the report's point.
  public var models: ReadModels
  /// The last event folded into `models` (0 for none).
  public var pointSequence: Int64
  /// The time of that event, if any.
  public var pointTime: Timestamp?
  /// Counts of the window's events.
  public var timeline: Timeline
  /// The histories of the entities changed in the window, the most recently changed first.
  public var changes: [EntityHistory]
  /// Entities changed in the window whose histories were left out (the limit).
  public var changesLeftOut: Int
  /// Events of the shown entities left out (each entity shows its latest events).
  public var changeEventsLeftOut: Int
  /// What the log's integrity looks like.
  public var integrity: Integrity

  /// What to report on.
  public struct Request: Sendable, Equatable {
    /// The point whose read models are shown (and whose digest is given).
    public var point: ReplayPoint
    /// The window's first event (a seq or a time; the first event when `nil`).
    public var from: ReportBound?
    /// The window's last event (a seq or a time; the report's point when `nil`).
    public var to: ReportBound?
    /// How much is shown before aggregating.
    public var limits: Limits
    /// Whether to run `replay verify`'s whole check (every line, version gaps, duplicate ids,
    /// every checkpoint's prefix re-hashed) and show its verdict: one more pass with SHA-256.
    public var verifies: Bool
    /// A signed tree head to check the log against (its note's signature already checked by
    /// the caller): the page says whether the log's first `size` events have its root.
    public var signedHead: TreeHead?
    /// Who signed `signedHead`, as the page names them (the key's name, the note's origin).
    public var signedBy = ""

    public init(
      point: ReplayPoint = .end, from: ReportBound? = nil, to: ReportBound? = nil,
      limits: Limits = Limits(), verifies: Bool = false
    ) {
      self.point = point
      self.from = from
      self.to = to
      self.limits = limits
      self.verifies = verifies
    }
  }

  /// What the log says of a signed head: `problem` is nil when the log's first `head.size`
  /// events have the signed root (so the log is, or extends, the log that was signed).
  public struct NoteCheck: Sendable, Equatable {
    /// The head checked.
    public var head: TreeHead
    /// Who signed it (`Request.signedBy`).
    public var signedBy: String
    /// The log's events when checked.
    public var logSize: Int64
    /// What does not match, or nil when the head verifies.
    public var problem: String?
  }

  /// How much of each part the page holds; what is beyond is counted and said on the page.
  public struct Limits: Sendable, Equatable {
    /// Rows of each of the five screens.
    public var rowsPerScreen = 250
    /// Entities whose histories are shown.
    public var changedEntities = 60
    /// Events shown per entity (its latest in the window).
    public var eventsPerEntity = 20
    /// Locations plotted one by one on the map (beyond, an even sample).
    public var mapPoints = 3000
    /// Locations whose nearest-neighbour links are drawn.
    public var mapLinks = 400
    /// Rows of the busiest entities, actors and types.
    public var busiest = 12
    /// Columns of the timeline.
    public var timelineBuckets = 48

    public init() {}
  }

  /// The window's events, counted.
  public struct Timeline: Sendable, Equatable {
    /// The window's first and last seq (`nil` when it holds no event).
    public var sequences: ClosedRange<Int64>?
    /// The window's first and last event time.
    public var times: ClosedRange<Timestamp>?
    /// Events in the window.
    public var eventCount = 0
    /// The columns of the chart, in time order.
    public var buckets: [Bucket] = []
    /// Events per type, the most frequent first.
    public var types: [Count] = []
    /// Events per actor (`(no actor)` for events without one), the most frequent first.
    public var actors: [Count] = []
    /// Distinct actors in the window.
    public var actorCount = 0
    /// Events per stream, the busiest first.
    public var busiest: [Count] = []
    /// Distinct streams changed in the window.
    public var streamCount = 0

    public init() {}

    /// One column: the events whose time falls in `start..<end` (the last column includes its
    /// end), per domain.
    public struct Bucket: Sendable, Equatable {
      public var start: Timestamp
      public var end: Timestamp
      /// Events per domain, in ``AuditReport/domains`` order; the last entry counts events of
      /// other streams.
      public var counts: [Int]

      /// All events of the column.
      public var total: Int { counts.reduce(0, +) }
    }

    /// A name and how many events it has.
    public struct Count: Sendable, Equatable {
      public var name: String
      public var count: Int
    }
  }

  /// What the report can say about the log's integrity.
  public struct Integrity: Sendable, Equatable {
    /// Lines read and checked (checksum, seq order, envelope) while building the report.
    public var linesChecked = 0
    /// The last event read: the log may go on past the report's point and window.
    public var lastSequenceRead: Int64 = 0
    /// The log's size in bytes.
    public var byteCount: Int64 = 0
    /// The digest of the log through the report's point.
    public var digest: LogDigest?
    /// The log's Merkle tree head (RFC 9162) at the report's point: what `replay head --at`
    /// gives, and what a signed note of that point would sign.
    public var treeHead: TreeHead?
    /// Files in `<log>.quarantine/`: bytes recovery or repair cut off.
    public var quarantined: [Quarantine.Entry] = []
    /// Checkpoints beside the log.
    public var checkpointCount = 0
    /// Warnings the reader gave (a damaged last line, a log shorter than its checkpoints).
    public var warnings: [String] = []
    /// `replay verify`'s verdict, when the request asked for it.
    public var verification: Verification?
    /// The signed head's check, when the request gave one.
    public var noteCheck: NoteCheck?
    /// The database the log is kept in, when it is not a file (then there is no file size,
    /// quarantine or checkpoint folder to speak of).
    public var database: Database?

    public init() {}
  }

  /// A database holding the log, as the page names it.
  public struct Database: Sendable, Equatable {
    /// What it is and where: `PostgreSQL database <URL without its password>`.
    public var name: String
    /// Rows of the events' table.
    public var rowCount: Int64
    /// The checkpoints kept in the database, in a few words.
    public var checkpoints: String
  }

  /// `replay verify`'s verdict on the log: of the file (`LogVerifier`) or of a database.
  public struct Verification: Sendable, Equatable {
    /// Events that passed every check.
    public var eventCount: Int
    /// Distinct streams.
    public var streamCount: Int
    /// The last event's seq.
    public var lastSequence: Int64
    /// What was checked besides every line, in a few words.
    public var alsoChecked: String
    /// Everything wrong, one sentence each.
    public var problems: [String]

    /// Whether the log passed.
    public var isValid: Bool { problems.isEmpty }

    public init(
      eventCount: Int, streamCount: Int, lastSequence: Int64, alsoChecked: String,
      problems: [String]
    ) {
      self.eventCount = eventCount
      self.streamCount = streamCount
      self.lastSequence = lastSequence
      self.alsoChecked = alsoChecked
      self.problems = problems
    }

    /// The verdict of `replay verify` on a log file.
    public init(_ report: LogVerifier.Report) {
      self.init(
        eventCount: report.eventCount, streamCount: report.streamCount,
        lastSequence: report.lastSequence,
        alsoChecked: "\(report.checkpointsChecked) checkpoints re-hashed",
        problems: report.problems.map(\.description))
    }
  }

  /// A tree head: the number of events and the root of their tree.
  public struct TreeHead: Sendable, Equatable {
    /// Events covered (leaves).
    public var size: Int64
    /// The tree's root: 32 bytes.
    public var root: [UInt8]

    /// Creates a head of `size` events whose tree has root `root`.
    public init(size: Int64, root: [UInt8]) {
      self.size = size
      self.root = root
    }
  }

  /// The five domains in the order the report shows them, with their stream categories.
  public static let domains: [EntityKind] = [.contact, .state, .observation, .animal, .location]
}

/// One end of the report's window.
package enum ReportBound: Sendable, Equatable, CustomStringConvertible {
  /// An event's seq.
  case sequence(Int64)
  /// A time: events at or after it (for `from`), at or before it (for `to`).
  case instant(Timestamp)

  public var description: String {
    switch self {
    case .sequence(let sequence): "seq \(sequence)"
    case .instant(let instant): "\(instant)"
    }
  }
}
