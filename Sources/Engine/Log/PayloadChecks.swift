import Dispatch
import Events

/// `verify`'s payload checks (each line's `data` decodes as its type, if this engine knows it),
/// run on a thread of their own beside the line-by-line checks: they need nothing from other
/// lines, and they are about half of `verify`'s work.
///
/// Each line's payload is copied into a batch (its bytes, with the 18 after it that the cursor
/// may read); full batches are checked in order on a serial queue, at most `inFlight` at a time
/// (memory stays at a few batches whatever the log's size). On a short log the batches are
/// checked on the calling thread, where a second thread would cost more than it saves.
/// `finish` returns the problems in line order.
struct PayloadChecks {
  /// One line's payload in a batch.
  private struct Job {
    var line: Int
    var offset: Int64
    var schemaVersion: Int
    /// Whether the line passed every other check (a failure here then takes it off the count).
    var wasSound: Bool
    /// The type's bytes, then the payload's with the line's suffix, in `Batch.bytes`.
    var type: Range<Int>
    var data: Range<Int>
  }

  /// Lines' payloads and, once checked, their problems.
  ///
  /// - Note: `@unchecked Sendable` because a batch belongs to one thread at a time: the caller's
  ///   until it is submitted, then the queue's until `finish` waits for the queue.
  private final class Batch: @unchecked Sendable {
    var bytes: [UInt8]
    var jobs: [Job]
    var problems: [LogVerifier.Problem] = []
    /// Lines that were sound until their payload failed.
    var unsound = 0

    init(bytes: [UInt8], jobs: [Job]) {
      self.bytes = bytes
      self.jobs = jobs
    }

    func check() {
      bytes.withUnsafeBufferPointer { bytes in
        // Not empty when there are jobs: each holds at least the line's suffix.
        guard let base = bytes.baseAddress else { return }
        for job in jobs {
          let type = UnsafeBufferPointer(start: base + job.type.lowerBound, count: job.type.count)
          var data = JSONCursor(base: base + job.data.lowerBound, count: job.data.count)
          data.readableSlack = LogLineCodec.suffixLength
          switch PayloadChecks.verdict(type: type, schemaVersion: job.schemaVersion, data: data) {
          case .fits:
            continue
          case .newerSchema:
            // Listed with the line already, when the verifier knows the type's newest version.
            break
          case .problem(let message):
            problems.append(
              LogVerifier.Problem(line: job.line, offset: job.offset, message: message))
          }
          if job.wasSound { unsound += 1 }
        }
      }
      // Only the problems are kept until `finish`.
      bytes = []
      jobs = []
    }
  }

  /// Jobs per batch.
  static let batchSize = 4096
  /// Batches submitted and not yet checked, at most.
  static let inFlight = 3

  private let queue: DispatchQueue?
  private let group = DispatchGroup()
  private let slots = DispatchSemaphore(value: PayloadChecks.inFlight)
  /// The batch being filled, in the struct's own arrays: a class's stored properties are
  /// checked for exclusive access at run time on every use (about 400 instructions a line).
  private var bytes: [UInt8] = []
  private var jobs: [Job] = []
  private var submitted: [Batch] = []

  /// - Parameter concurrent: whether to check on a thread of its own.
  init(concurrent: Bool) {
    queue = concurrent ? DispatchQueue(label: "replay.verify.payloads") : nil
  }

  /// Queues `line`'s payload for checking.
  mutating func add(_ line: EventLine, lineNumber: Int, wasSound: Bool) {
    if jobs.isEmpty {
      bytes.reserveCapacity(Self.batchSize * 320)
      jobs.reserveCapacity(Self.batchSize)
    }
    let typeStart = bytes.count
    bytes.append(contentsOf: line.typeBytes)
    let dataStart = bytes.count
    // The payload, then the line's suffix (`,"crc":"…"}`): the cursor may read into it.
    bytes.append(
      contentsOf: UnsafeBufferPointer(
        start: line.base + line.dataRange.lowerBound,
        count: line.length - line.dataRange.lowerBound))
    jobs.append(
      Job(
        line: lineNumber, offset: line.offset, schemaVersion: line.schemaVersion,
        wasSound: wasSound, type: typeStart..<dataStart,
        data: dataStart..<(dataStart + line.dataRange.count)))
    if jobs.count >= Self.batchSize { submit() }
  }

  private mutating func submit() {
    guard !jobs.isEmpty else { return }
    let batch = Batch(bytes: bytes, jobs: jobs)
    bytes = []
    jobs = []
    submitted.append(batch)
    guard let queue else {
      batch.check()
      return
    }
    slots.wait()
    queue.async(group: group) { [slots] in
      batch.check()
      slots.signal()
    }
  }

  /// Checks what is left and waits for every check: the problems in line order, and how many
  /// lines were sound until their payload failed.
  mutating func finish() -> (problems: [LogVerifier.Problem], unsound: Int) {
    submit()
    group.wait()
    var problems: [LogVerifier.Problem] = []
    var unsound = 0
    for batch in submitted {
      problems += batch.problems
      unsound += batch.unsound
    }
    submitted = []
    return (problems, unsound)
  }

  /// What a payload's check found.
  enum Verdict: Equatable {
    /// Its type decodes it, or this engine does not know its type.
    case fits
    /// Its schema version is newer than this engine decodes: not sound, and listed with the
    /// line (`LogVerifier.newestSchemaVersions`).
    case newerSchema
    /// Its type does not decode it: what is wrong.
    case problem(String)
  }

  /// Whether a payload is what its type (if this engine knows it) decodes. That the payload is
  /// one JSON object, every byte of it, the envelope decoder checked already.
  static func verdict(
    type: UnsafeBufferPointer<UInt8>, schemaVersion: Int, data: JSONCursor
  ) -> Verdict {
    // Types outside the vocabulary are left alone.
    var payload = data
    // The event is only checked: text is checked as it would be made, and not made.
    payload.skipsUnshownText = true
    do throws(EventsError) {
      _ = try EventVocabulary.decode(
        type: type, schemaVersion: schemaVersion, data: &payload, strict: false)
      return .fits
    } catch {
      if case .unsupportedSchemaVersion = error { return .newerSchema }
      return .problem("data does not fit '\(String(decoding: type, as: UTF8.self))': \(error)")
    }
  }
}
