import Dispatch
import Events
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

extension EventLog {
  /// The checks a write makes of each event on its own, made ahead of the write on a thread of
  /// its own: the stream's name, the event's type name, schema version and payload JSON, and,
  /// for a contact event offered sealed with its id, that its record opens with this log's
  /// keys.
  ///
  /// The write's thread plans, seals and encodes the events in order and checks each one; it
  /// skips a check that this thread has already passed. Only passes are recorded: an event that
  /// fails here, or that this thread has not reached yet, is checked on the write's thread as
  /// before, which names the problem, so what a write refuses, and the error it gives, do not
  /// depend on this thread. It never makes the write's thread wait: when it falls behind, it
  /// skips ahead to where the write is. It keeps at most `lead` events (two chunks) ahead of the
  /// write, and waits there: what it reads is still in the caches when the write reads it, and a
  /// write bound by its syncs is not slowed by a thread that races through the whole write at
  /// its start (at 100 events a sync, unbounded, it made imports of a million events 1.19×
  /// slower).
  ///
  /// Worth it for large writes (imports): a few thousand instructions an event move off the
  /// write's thread, which at 1000 events a sync is what bounds an import.
  final class Prechecks: @unchecked Sendable {
    /// What passed, by position in the write (from 1).
    struct Passed: OptionSet {
      let rawValue: UInt8
      /// The event's type name, schema version and payload JSON (`EventLog.validate`).
      static let event = Passed(rawValue: 1)
      /// The stream's name (recorded at the position of its write's first event).
      static let stream = Passed(rawValue: 2)
      /// The sealed record opens with this log's keys (`EventLog.checkOpens`).
      static let opens = Passed(rawValue: 4)
    }

    /// Which writes are checked ahead.
    enum Use {
      /// Writes of at least 256 events (fewer are not worth a thread).
      case largeWrites
      /// None.
      case never
      /// Every write, and the write's thread waits for each event's checks, so that every
      /// check it skips is one this thread passed (for tests).
      case everyEvent
    }

    /// By position, from 1; written by the checking thread before it publishes the position
    /// through `checked`, read by the write's thread only after it has seen that.
    private let passed: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Positions 1 through this one are final.
    private let checked = Atomic<Int>(0)
    /// The last position the write's thread is done with: positions up to it are not worth
    /// checking.
    private let reached = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// How many events ahead of the write's thread this thread checks.
    private let lead: Int
    /// Signalled by the write's thread as it moves on, for this thread waiting at its lead.
    private let moved = DispatchSemaphore(value: 0)

    /// The write's thread waits for each event's checks (`Use.everyEvent`).
    private let waits: Bool

    /// Starts checking `writes` (`total` events in all) for `log`, if `use` says so.
    /// `lead` events ahead of the write's thread at most.
    convenience init?(_ writes: [StreamWrite], total: Int, lead: Int, log: EventLog, use: Use) {
      switch use {
      case .largeWrites where total >= 256:
        self.init(writes, total: total, lead: lead, log: log, waits: false)
      case .everyEvent: self.init(writes, total: total, lead: lead, log: log, waits: true)
      default: return nil
      }
    }

    private init(_ writes: [StreamWrite], total: Int, lead: Int, log: EventLog, waits: Bool) {
      self.waits = waits
      self.lead = max(lead, 64)
      capacity = total + 1
      passed = .allocate(capacity: capacity)
      passed.initialize(repeating: 0, count: capacity)
      Thread.detachNewThread { [self] in
        #if os(Linux)
          // The lowest priority, for this thread alone (Linux keeps a nice value per thread):
          // the write's thread, its syncs and the kernel's journal come first, and this
          // thread still runs when the machine is busy, so a lock it holds is soon let go.
          _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
        run(writes, log: log)
        finished.signal()
      }
    }

    deinit { passed.deallocate() }

    /// Stops the checking thread and waits for it; call once, before the write returns.
    func stop() {
      stopped.store(true, ordering: .relaxed)
      moved.signal()
      finished.wait()
    }

    /// On the write's thread: what passed at `position` (nothing when it is not checked yet).
    func passed(at position: Int) -> Passed {
      guard position < capacity else { return [] }
      // The events before this one are done with; this one may still be checked here.
      reached.store(position - 1, ordering: .relaxed)
      // Every so often, wake the checking thread if it waits at its lead.
      if position % 64 == 0 { moved.signal() }
      while waits, checked.load(ordering: .acquiring) < position { sched_yield() }
      guard checked.load(ordering: .acquiring) >= position else { return [] }
      return Passed(rawValue: passed[position])
    }

    private func run(_ writes: [StreamWrite], log: EventLog) {
      var keys = PersonalData.KeyRing(log.openLog)
      var position = 0
      for write in writes {
        for (index, event) in write.events.enumerated() {
          position += 1
          while position - reached.load(ordering: .relaxed) > lead {
            if stopped.load(ordering: .relaxed) { return }
            moved.wait()
          }
          if stopped.load(ordering: .relaxed) { return }
          guard position > reached.load(ordering: .relaxed), position < capacity else {
            checked.store(position, ordering: .releasing)
            continue
          }
          var found: Passed = []
          if index == 0, EnvelopeRules.problem(withStreamName: write.stream) == nil {
            found.insert(.stream)
          }
          if (try? log.validate(event, location: nil)) != nil {
            found.insert(.event)
            if event.schemaVersion >= 2, PersonalData.carriesPersonalData(type: event.type),
              let id = event.id,
              (try? EventLog.checkOpens(
                event, id: id, stream: write.stream, sequence: 0, keys: &keys))
                != nil
            {
              found.insert(.opens)
            }
          }
          passed[position] = found.rawValue
          checked.store(position, ordering: .releasing)
        }
      }
    }
  }
}
