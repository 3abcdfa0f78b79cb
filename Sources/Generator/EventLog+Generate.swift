import Engine
import Events
import Synchronization

/// What a generation wrote.
package struct GenerationSummary: Sendable, Equatable {
  /// Events appended.
  public var eventCount = 0
  /// Bytes appended.
  public var byteCount: Int64 = 0
  /// Events appended, by type.
  public var eventsByType: [String: Int] = [:]
  /// The seqs appended, if any.
  public var sequences: ClosedRange<Int64>?
  /// Atomic writes made (one per chunk).
  public var chunkCount = 0

  public init() {}
}

extension EventLog {
  /// Appends `count` events from `generator`, in atomic writes of `chunkSize` events each
  /// synced once (the batch path of imports), moving `clock` on after each write. Only one
  /// chunk of events is in memory at a time.
  /// - Parameters:
  ///   - count: how many events to append.
  ///   - generator: where the events come from; it is left ready to go on.
  ///   - chunkSize: events per atomic write.
  ///   - clock: the clock the log stamps events with, if it is a `GenerationClock`.
  ///   - progress: called after each chunk with the number of events appended so far.
  /// - Returns: what was written.
  /// - Throws: as `importEvents(_:chunkSize:)`; the chunks written before the failure stay.
  @discardableResult
  package func appendGenerated(
    _ count: Int, from generator: inout LogGenerator, chunkSize: Int = 10_000,
    clock: GenerationClock? = nil, progress: ((_ appended: Int) -> Void)? = nil
  ) throws -> GenerationSummary {
    precondition(count >= 0, "cannot generate \(count) events")
    precondition(chunkSize > 0, "chunk size must be positive, was \(chunkSize)")
    var summary = GenerationSummary()
    let startOffset = committedEnd
    var writes: [StreamWrite] = []
    writes.reserveCapacity(min(count, chunkSize))
    while summary.eventCount < count {
      writes.removeAll(keepingCapacity: true)
      for _ in 0..<min(chunkSize, count - summary.eventCount) {
        let generated = generator.next()
        let (stream, event) = EventVocabulary.proposedEvent(
          generated.event, metadata: generated.metadata)
        summary.eventsByType[event.type, default: 0] += 1
        writes.append(StreamWrite(stream: stream, events: [event]))
      }
      let written = try importEvents(writes, chunkSize: writes.count)
      if let sequences = written.sequences {
        let first = summary.sequences?.lowerBound ?? sequences.lowerBound
        summary.sequences = first...sequences.upperBound
      }
      summary.eventCount += writes.count
      summary.chunkCount += 1
      clock?.advance()
      progress?(summary.eventCount)
    }
    summary.byteCount = committedEnd - startOffset
    // One save at the end, so the next process reads none of what was generated.
    if count > 0 { try saveIndex() }
    return summary
  }
}
