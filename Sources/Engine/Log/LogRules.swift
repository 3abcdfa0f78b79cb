import Events

/// The rules a log's lines keep among themselves, beyond what one line alone shows (its
/// envelope and checksum, `LogLineCodec`), each with its one wording. Every reader of the log
/// checks them through this type: the reader (`LogReader`, `PipelinedScan`), the writer's
/// index (`LogIndex`), `replay verify` (`LogVerifier`) and `replay repair` (`LogRepair`).
///
/// - seq runs gapless from 1, one a line;
/// - each stream's versions run from 1 without gaps;
/// - event ids are unique in the log;
/// - the lines of one write (`batch: [first, last]`) are consecutive, the first carries seq
///   `first`, and every one names the same range.
///
/// Where the versions and ids are kept is each reader's own (the writer's index keeps them by
/// stream and by id for its lookups, `verify` in tables of names): `Sequence` holds the seq
/// and write rules, which need nothing but the previous line.
enum LogRules {
  /// A rule a line breaks, with what it found.
  enum Violation: Equatable, Sendable, CustomStringConvertible {
    /// The line's seq is not the one after the previous line's.
    case sequence(found: Int64, expected: Int64)
    /// The line's version is not the one after its stream's previous version.
    case version(stream: String, previous: Int64, found: Int64)
    /// The line's id is on an earlier line too.
    case duplicateID(EventID, earlier: Earlier)
    /// A write's lines stop before its last one (the line found names another write, or none).
    case writeStopsEarly(ClosedRange<Int64>)
    /// A line says it belongs to a write whose first line is not before it.
    case writeStartMissing(sequence: Int64, write: ClosedRange<Int64>)

    /// Where the earlier line with the same id is, as far as the reader knows.
    enum Earlier: Equatable, Sendable {
      case line(Int)
      case offset(Int64)
      case unknown
    }

    var description: String {
      switch self {
      case .sequence(let found, let expected):
        "seq is \(found) where \(expected) was expected (seq runs gapless from 1)"
      case .version(let stream, let previous, let found):
        "stream '\(stream)' goes from version \(previous) to \(found) (versions run from 1 without gaps)"
      case .duplicateID(let id, .line(let line)):
        "event id \(id) is already in the log, on line \(line) (ids are unique)"
      case .duplicateID(let id, .offset(let offset)):
        "event id \(id) is already in the log, on the line at byte \(offset) (ids are unique)"
      case .duplicateID(let id, .unknown):
        "event id \(id) is already in the log (ids are unique)"
      case .writeStopsEarly(let write):
        "the write of events \(write.lowerBound)...\(write.upperBound) stops before its end"
      case .writeStartMissing(let sequence, let write):
        "event \(sequence) claims to be part of a write starting at \(write.lowerBound), which is missing"
      }
    }
  }

  /// Whether `found` may follow `previous` as a stream's next version.
  @inline(__always)
  static func versionFollows(_ previous: Int64, _ found: Int64) -> Bool {
    found == previous + 1 && found >= 1
  }

  /// The seq and write rules, line after line.
  struct Sequence {
    /// The seq the next line must carry.
    private(set) var expected: Int64
    /// The write the previous line belongs to when that line was not its last.
    private(set) var openWrite: ClosedRange<Int64>?

    /// Checks from a line with seq `first` on.
    init(first: Int64 = 1) {
      expected = first
    }

    /// What is wrong with the next line's seq, if anything.
    @inline(__always)
    func violation(sequence found: Int64) -> Violation? {
      found == expected ? nil : .sequence(found: found, expected: expected)
    }

    /// Reports each write rule the line with seq `sequence` breaks (`batch` is the write it
    /// names, `nil` for a single event): a line can end one write early and claim a missing
    /// start of another.
    @inline(__always)
    func violations(
      sequence: Int64, write batch: ClosedRange<Int64>?, _ report: (Violation) -> Void
    ) {
      var open = openWrite
      if let write = open, batch != write {
        report(.writeStopsEarly(write))
        open = nil
      }
      if let batch, open == nil, sequence != batch.lowerBound {
        report(.writeStartMissing(sequence: sequence, write: batch))
      }
    }

    /// Takes the line with seq `sequence` in `batch` as read: the next line is expected after
    /// it, inside the write when this was not its last line.
    @inline(__always)
    mutating func accept(sequence: Int64, write batch: ClosedRange<Int64>?) {
      expected = sequence + 1
      openWrite = batch.flatMap { sequence < $0.upperBound ? $0 : nil }
    }

    /// After a line a reader could not read, taken as the expected one: the next seq is
    /// expected, and a write whose last line this would have been is closed.
    mutating func skipUnreadable() {
      if let write = openWrite, expected >= write.upperBound { openWrite = nil }
      expected += 1
    }
  }
}
