import Events
import Foundation
import Synchronization
import Testing

@testable import Engine

/// Following a log: what is committed, in order, once; then what is appended; stops and errors.
@Suite struct LogFollowerTests {
  /// Collects what a follower delivers on a thread of its own.
  final class Collector: Sendable {
    private let state = Mutex<(sequences: [Int64], error: String?, finished: Bool)>(
      (sequences: [], error: nil, finished: false))

    var sequences: [Int64] { state.withLock { $0.sequences } }
    var error: String? { state.withLock { $0.error } }
    var finished: Bool { state.withLock { $0.finished } }

    func start(_ follower: LogFollower) {
      let thread = Thread { [self] in
        do {
          try follower.follow { line in
            state.withLock { $0.sequences.append(line.sequence) }
            return true
          }
        } catch {
          state.withLock { $0.error = "\(error)" }
        }
        state.withLock { $0.finished = true }
      }
      thread.start()
    }

    /// Waits (up to 10 s) until `condition` holds.
    func wait(until condition: (Collector) -> Bool) {
      let deadline = Date().addingTimeInterval(10)
      while !condition(self), Date() < deadline { usleep(2000) }
    }
  }

  func makeLog(_ path: String, events: Int) throws -> EventLog {
    let log = try EventLog(path: path, configuration: testConfiguration())
    for index in 0..<events {
      try log.append(
        [proposed("ContactFavorited", #"{"id":"\#(index % 3)"}"#)], to: "contact-\(index % 3)")
    }
    return log
  }

  @Test func catchesUpThenDeliversEachNewEventOnceInOrder() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try makeLog(path, events: 5)
      let follower = LogFollower(path: path)
      let collector = Collector()
      collector.start(follower)
      collector.wait { $0.sequences.count == 5 }
      #expect(collector.sequences == [1, 2, 3, 4, 5])
      // Appends after the catch-up, one and then several at once.
      try log.append([proposed("ContactFavorited", #"{"id":"9"}"#)], to: "contact-9")
      try log.append(
        [
          proposed("ContactFavorited", #"{"id":"9"}"#),
          proposed("ContactUnfavorited", #"{"id":"9"}"#),
        ], to: "contact-9")
      collector.wait { $0.sequences.count == 8 }
      follower.stop()
      collector.wait { $0.finished }
      #expect(collector.sequences == Array(1...8))
      #expect(collector.error == nil)
    }
  }

  @Test func startsAfterASeqAtATimeOrAtTheEndAndFilters() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var clock: Int64 = 1_790_000_000_000
      let times = Mutex(clock)
      var configuration = testConfiguration()
      configuration.clock = { Timestamp(millisecondsSince1970: times.withLock { $0 }) }
      let log = try EventLog(path: path, configuration: configuration)
      for index in 0..<10 {
        clock += 1000
        times.withLock { $0 = clock }
        try log.append(
          [proposed(index % 2 == 0 ? "ContactFavorited" : "LocationAdded", #"{"id":"1"}"#)],
          to: index % 2 == 0 ? "contact-1" : "location-1")
      }
      func delivered(_ start: FollowStart, _ filter: EventFilter = EventFilter()) throws
        -> [Int64]
      {
        var sequences: [Int64] = []
        try LogFollower(path: path, from: start, filter: filter).follow(caughtUp: { false }) {
          sequences.append($0.sequence)
          return true
        }
        return sequences
      }
      #expect(try delivered(.afterSequence(7)) == [8, 9, 10])
      #expect(try delivered(.afterSequence(0)) == Array(1...10))
      #expect(try delivered(.afterSequence(10)) == [])
      #expect(try delivered(.afterSequence(99)) == [])
      #expect(try delivered(.end) == [])
      // The event at 1_790_000_004_000 is seq 4.
      #expect(
        try delivered(.time(Timestamp(millisecondsSince1970: 1_790_000_004_000))) == Array(4...10))
      #expect(
        try delivered(.time(Timestamp(millisecondsSince1970: 1_790_000_003_500))) == Array(4...10))
      #expect(try delivered(.beginning, EventFilter(categories: ["contact"])) == [1, 3, 5, 7, 9])
      #expect(try delivered(.beginning, EventFilter(streams: ["location-1"])) == [2, 4, 6, 8, 10])
      #expect(try delivered(.beginning, EventFilter(types: ["LocationAdded"])) == [2, 4, 6, 8, 10])
      #expect(try delivered(.beginning, EventFilter(categories: ["contac"])) == [])
    }
  }

  @Test func aFilteredCatchUpThroughTheIndexDeliversWhatAScanDelivers() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var configuration = testConfiguration()
      configuration.indexSaveThreshold = 50
      let saving = try EventLog(path: path, configuration: configuration)
      var generator = SplitMix64(seed: TestSeed.make("aFilteredCatchUpThroughTheIndex"))
      func fill(_ log: EventLog, _ count: Int) throws {
        for _ in 0..<count {
          let number = generator.next() % 40
          let stream = number % 3 == 0 ? "location-\(number)" : "contact-\(number)"
          try log.append([proposed("ContactFavorited", #"{"id":"x"}"#)], to: stream)
        }
      }
      try fill(saving, 400)
      // Lines past the saved index.
      var other = testConfiguration()
      other.indexSaveThreshold = nil
      let late = try EventLog(path: path, configuration: other)
      try fill(late, 15)
      #expect(FileManager.default.fileExists(atPath: path + ".index"))
      let all = try readAll(path)
      for filter in [
        EventFilter(streams: ["contact-1"]), EventFilter(streams: ["location-3", "contact-2"]),
      ] {
        for start in [FollowStart.beginning, .afterSequence(123), .afterSequence(405)] {
          var seen: [Int64] = []
          try LogFollower(path: path, from: start, filter: filter).follow(caughtUp: { false }) {
            seen.append($0.sequence)
            return true
          }
          let after: Int64 = if case .afterSequence(let n) = start { n } else { 0 }
          let expected = all.filter { $0.sequence > after && filter.matches($0) }.map(\.sequence)
          #expect(seen == expected, "\(filter) \(start)")
          // Stopping part-way, and `through`, as a scan would.
          var firstTwo: [Int64] = []
          try LogFollower(path: path, from: start, filter: filter).follow(
            through: 300, caughtUp: { false }
          ) {
            firstTwo.append($0.sequence)
            return firstTwo.count < 2
          }
          #expect(firstTwo == Array(expected.filter { $0 <= 300 }.prefix(2)), "\(filter) \(start)")
        }
      }
    }
  }

  @Test func anUnfinishedWriteIsNotDeliveredUntilItIsComplete() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let scratch = directory + "/scratch.jsonl"
      _ = try makeLog(path, events: 4)
      // The lines a two-event write would add: made on a copy, then written one at a time.
      try FileManager.default.copyItem(atPath: path, toPath: scratch)
      let copy = try EventLog(path: scratch, configuration: testConfiguration())
      try copy.append(
        [
          proposed("ContactFavorited", #"{"id":"7"}"#),
          proposed("ContactUnfavorited", #"{"id":"7"}"#),
        ], to: "contact-7")
      let lines = try String(contentsOfFile: scratch, encoding: .utf8).split(separator: "\n")
      let handle = try #require(FileHandle(forWritingAtPath: path))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data((lines[4] + "\n").utf8))

      let follower = LogFollower(path: path)
      let collector = Collector()
      collector.start(follower)
      collector.wait { $0.sequences.count >= 4 }
      usleep(200_000)
      #expect(collector.sequences == [1, 2, 3, 4])
      try handle.write(contentsOf: Data((lines[5] + "\n").utf8))
      try handle.close()
      collector.wait { $0.sequences.count == 6 }
      follower.stop()
      collector.wait { $0.finished }
      #expect(collector.sequences == Array(1...6))
    }
  }

  @Test func aTruncatedOrReplacedLogStopsWithAnError() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeLog(path, events: 6)
      let original = try Data(contentsOf: URL(fileURLWithPath: path))

      let follower = LogFollower(path: path)
      let collector = Collector()
      collector.start(follower)
      collector.wait { $0.sequences.count == 6 }
      let cut = try #require(FileHandle(forWritingAtPath: path))
      try cut.truncate(atOffset: UInt64(original.count / 2))
      try cut.close()
      collector.wait { $0.finished }
      #expect(collector.error?.contains("shorter than the") == true)

      try original.write(to: URL(fileURLWithPath: path))
      let second = LogFollower(path: path)
      let other = Collector()
      other.start(second)
      other.wait { $0.sequences.count == 6 }
      try FileManager.default.removeItem(atPath: path)
      try original.write(to: URL(fileURLWithPath: path))
      // A new file under the name: its own change (or the old one's deletion) wakes the follower.
      other.wait { $0.finished }
      #expect(other.error?.contains("was replaced, moved or deleted") == true)
    }
  }

  @Test(.timeLimit(.minutes(1))) func aSubscriptionIsAnAsyncSequenceThatEndsWithItsTask()
    async throws
  {
    let directory = NSTemporaryDirectory() + "replay-subscription-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/log.jsonl"
    let log = try makeLog(path, events: 3)
    let subscription = LogSubscription(
      path: path, from: .afterSequence(1), filter: EventFilter(categories: ["contact"]))
    let consumer = Task {
      var seen: [Int64] = []
      for try await event in subscription {
        seen.append(event.sequence)
        if seen.count == 4 { break }
      }
      return seen
    }
    try log.append([proposed("ContactFavorited", #"{"id":"5"}"#)], to: "contact-5")
    try log.append([proposed("LocationAdded", #"{"id":"5"}"#)], to: "location-5")
    try log.append([proposed("ContactFavorited", #"{"id":"6"}"#)], to: "contact-6")
    #expect(try await consumer.value == [2, 3, 4, 6])

    // Cancelling the task that waits ends the loop.
    let waiting = Task {
      var count = 0
      for try await _ in LogSubscription(path: path, from: .end) { count += 1 }
      return count
    }
    try await Task.sleep(for: .milliseconds(100))
    waiting.cancel()
    #expect(try await waiting.value == 0)
  }

  @Test(.timeLimit(.minutes(1))) func readModelUpdatesFoldOnlyTheNewEvents() async throws {
    let directory = NSTemporaryDirectory() + "replay-updates-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/log.jsonl"
    let log = try EventLog(path: path, configuration: testConfiguration())
    try log.append(
      [proposed("ContactAdded", #"{"id":"1","name":"Ana","isFavorite":false}"#)], to: "contact-1")
    func favorites(_ update: ReadModelUpdates.Update?) -> [String]? {
      update?.models.contacts.sections[0].contacts.map(\.id.rawValue)
    }
    var updates = ReadModelUpdates(path: path, models: [ContactList.name]).makeAsyncIterator()
    let first = try await updates.next()
    #expect(favorites(first) == [])
    #expect(first?.sequence == 1)
    try log.append([proposed("ContactFavorited", #"{"id":"1"}"#)], to: "contact-1")
    let second = try await updates.next()
    #expect(favorites(second) == ["1"])
    #expect(second?.sequence == 2)
    #expect(second?.newEventCount == 1)
  }
}
