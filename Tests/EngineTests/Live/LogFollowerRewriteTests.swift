import Events
import Foundation
import Synchronization
import Testing

@testable import Engine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A follower checks at each wake that what it delivered is still in the log: a log rewritten in
/// place or replaced by a rename ends it with `FollowError.logReplaced`; appends never do.
@Suite struct LogFollowerRewriteTests {
  /// Runs a follower on a thread of its own and keeps what it delivers and how it ended.
  final class Run: Sendable {
    private struct State {
      var sequences: [Int64] = []
      var caughtUpCount = 0
      var error: (any Error)?
      var finished = false
    }

    private let state = Mutex(State())

    var sequences: [Int64] { state.withLock { $0.sequences } }
    var caughtUpCount: Int { state.withLock { $0.caughtUpCount } }
    var followError: FollowError? { state.withLock { $0.error as? FollowError } }
    var errorDescription: String? { state.withLock { $0.error.map { "\($0)" } } }
    var finished: Bool { state.withLock { $0.finished } }

    init(_ follower: LogFollower) {
      let thread = Thread { [self] in
        do {
          try follower.follow(
            caughtUp: {
              state.withLock { $0.caughtUpCount += 1 }
              return true
            }
          ) { line in
            state.withLock { $0.sequences.append(line.sequence) }
            return true
          }
        } catch {
          state.withLock { $0.error = error }
        }
        state.withLock { $0.finished = true }
      }
      thread.start()
    }

    /// Waits (up to 10 s) until `condition` holds; returns whether it does.
    @discardableResult
    func wait(until condition: (Run) -> Bool) -> Bool {
      let deadline = Date().addingTimeInterval(10)
      while !condition(self), Date() < deadline { usleep(2000) }
      return condition(self)
    }
  }

  /// A log of `count` events, `ContactFavorited` of contacts 0, 1 and 2 in turn.
  @discardableResult
  func makeLog(_ path: String, events count: Int) throws -> EventLog {
    let log = try EventLog(path: path, configuration: testConfiguration())
    for index in 0..<count {
      try log.append(
        [proposed("ContactFavorited", #"{"id":"\#(index % 3)"}"#)], to: "contact-\(index % 3)")
    }
    return log
  }

  /// The byte offset where each line of the file at `path` starts, and its size at the end.
  func lineStarts(_ path: String) throws -> [Int64] {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    var starts: [Int64] = [0]
    for (index, byte) in bytes.enumerated() where byte == 0x0A { starts.append(Int64(index + 1)) }
    return starts
  }

  /// What another writer does to rewrite history: holding the log's exclusive lock (`flock`, as
  /// `EventLog` takes it), cuts the log back to the end of line `kept` and writes, in place of
  /// the lines after it, as many other lines of the same lengths (contacts 7, 8 and 9 where the
  /// log had 0, 1 and 2), then `extra` more.
  func rewrite(_ path: String, keeping kept: Int, extra: Int = 0) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let scratch = directory + "/rewrite-\(UUID().uuidString).jsonl"
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    let lines = original.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
    let head = lines.prefix(kept).map { Data($0) + Data([0x0A]) }.reduce(Data(), +)
    try head.write(to: URL(fileURLWithPath: scratch))
    let other = try EventLog(path: scratch, configuration: testConfiguration())
    for index in kept..<(lines.count + extra) {
      try other.append(
        [proposed("ContactFavorited", #"{"id":"\#(index % 3 + 7)"}"#)],
        to: "contact-\(index % 3 + 7)")
    }
    let replacement = try Data(contentsOf: URL(fileURLWithPath: scratch)).dropFirst(head.count)
    let rewritten = lines.count - kept
    #expect(
      replacement.split(separator: 0x0A).prefix(rewritten).map(\.count)
        == lines.suffix(rewritten).map(\.count))

    let file = open(path, O_RDWR)
    try #require(file >= 0)
    defer { close(file) }
    try #require(flock(file, LOCK_EX) == 0)
    defer { flock(file, LOCK_UN) }
    try #require(ftruncate(file, off_t(head.count)) == 0)
    let written = replacement.withUnsafeBytes {
      pwrite(file, $0.baseAddress, $0.count, off_t(head.count))
    }
    try #require(written == replacement.count)
  }

  @Test(.timeLimit(.minutes(1)), arguments: [0, 2])
  func aLogRewrittenInPlaceEndsTheFollowerWithLogReplaced(extra: Int) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try makeLog(path, events: 6)
      let starts = try lineStarts(path)
      let follower = LogFollower(path: path)
      let run = Run(follower)
      try #require(run.wait { $0.sequences.count == 6 && $0.caughtUpCount >= 1 })

      // Lines 4 to 6 replaced by others of the same lengths: the file's size is unchanged
      // when nothing more is appended.
      try rewrite(path, keeping: 3, extra: extra)
      #expect(run.wait { $0.finished })
      #expect(
        run.followError
          == .logReplaced(path: path, sequence: 6, offset: starts[5], replacement: .rewrittenLine))
      #expect(
        run.errorDescription?.contains(
          "'\(path)' was rewritten in place while it was followed: the line of seq 6 at byte \(starts[5])"
        ) == true)
      #expect(run.errorDescription?.contains("restart the follower") == true)
      // Nothing of the other history was delivered.
      #expect(run.sequences == [1, 2, 3, 4, 5, 6])
    }
  }

  /// A follower that starts after a seq or at the end has read nothing: it checks the line
  /// before where it starts.
  @Test(.timeLimit(.minutes(1)), arguments: [FollowStart.afterSequence(5), .end])
  func aFollowerThatStartsLaterChecksTheLineBeforeItsStart(start: FollowStart) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try makeLog(path, events: 6)
      let starts = try lineStarts(path)
      let run = Run(LogFollower(path: path, from: start))
      try #require(run.wait { $0.caughtUpCount >= 1 })
      try rewrite(path, keeping: 4, extra: 1)
      #expect(run.wait { $0.finished })
      // From the end, seq 6 is the line before the start; after seq 5, it is the one delivered.
      #expect(
        run.followError
          == .logReplaced(path: path, sequence: 6, offset: starts[5], replacement: .rewrittenLine))
      #expect(run.sequences == (start == .end ? [] : [6]))
    }
  }

  @Test(.timeLimit(.minutes(1))) func aLogReplacedByARenameEndsTheFollowerWithLogReplaced() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try makeLog(path, events: 4)
      let size = try #require(try lineStarts(path).last)
      let run = Run(LogFollower(path: path))
      try #require(run.wait { $0.sequences.count == 4 && $0.caughtUpCount >= 1 })
      // The same bytes, but another file (another inode) under the name.
      let copy = directory + "/copy.jsonl"
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      try #require(rename(copy, path) == 0)
      #expect(run.wait { $0.finished })
      #expect(
        run.followError
          == .logReplaced(path: path, sequence: 4, offset: size, replacement: .anotherFile))
      #expect(run.errorDescription?.contains("restart the follower") == true)
      #expect(run.sequences == [1, 2, 3, 4])
    }
  }

  @Test(.timeLimit(.minutes(1))) func appendsAndATornTailLaterCompletedDoNotStopTheFollower()
    throws
  {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try makeLog(path, events: 3)
      let follower = LogFollower(path: path)
      let run = Run(follower)
      try #require(run.wait { $0.sequences.count == 3 })
      try log.append([proposed("ContactFavorited", #"{"id":"4"}"#)], to: "contact-4")
      try log.append(
        [
          proposed("ContactFavorited", #"{"id":"5"}"#),
          proposed("ContactUnfavorited", #"{"id":"5"}"#),
        ], to: "contact-5")
      try #require(run.wait { $0.sequences.count == 6 })

      // The next line, made on a copy, written in two parts as a slow writer would: the first
      // half (a torn tail) wakes the follower, which must neither deliver it nor stop.
      let scratch = directory + "/scratch.jsonl"
      try FileManager.default.copyItem(atPath: path, toPath: scratch)
      try EventLog(path: scratch, configuration: testConfiguration()).append(
        [proposed("ContactFavorited", #"{"id":"6"}"#)], to: "contact-6")
      let last = try Data(contentsOf: URL(fileURLWithPath: scratch)).split(separator: 0x0A).last
      let line = try #require(last.map { Data($0) + Data([0x0A]) })
      let handle = try #require(FileHandle(forWritingAtPath: path))
      try handle.seekToEnd()
      let caughtUp = run.caughtUpCount
      try handle.write(contentsOf: line.prefix(line.count / 2))
      // The follower wakes for the torn bytes and goes back to waiting.
      run.wait { $0.caughtUpCount > caughtUp }
      #expect(run.sequences == [1, 2, 3, 4, 5, 6])
      #expect(!run.finished)
      try handle.write(contentsOf: line.dropFirst(line.count / 2))
      try handle.close()
      try #require(run.wait { $0.sequences.count == 7 })

      try log.append([proposed("ContactFavorited", #"{"id":"8"}"#)], to: "contact-8")
      try #require(run.wait { $0.sequences.count == 8 })
      usleep(100_000)
      #expect(!run.finished)
      #expect(run.errorDescription == nil)
      follower.stop()
      #expect(run.wait { $0.finished })
      #expect(run.sequences == Array(1...8))
      #expect(run.errorDescription == nil)
    }
  }

  @Test(.timeLimit(.minutes(1))) func aSubscriptionAndReadModelUpdatesEndWithLogReplaced()
    async throws
  {
    let directory = NSTemporaryDirectory() + "replay-rewrite-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/log.jsonl"
    let log = try makeLog(path, events: 4)

    var events = LogSubscription(path: path).makeAsyncIterator()
    for expected in Int64(1)...4 { #expect(try await events.next()?.sequence == expected) }
    var updates = ReadModelUpdates(path: path, models: [ContactList.name]).makeAsyncIterator()
    #expect(try await updates.next()?.sequence == 4)
    // One more event, read by both: each has read seq 5 when it is rewritten.
    try log.append([proposed("ContactFavorited", #"{"id":"1"}"#)], to: "contact-1")
    #expect(try await events.next()?.sequence == 5)
    #expect(try await updates.next()?.sequence == 5)
    let starts = try lineStarts(path)
    try rewrite(path, keeping: 2)

    let expected = FollowError.logReplaced(
      path: path, sequence: 5, offset: starts[4], replacement: .rewrittenLine)
    await #expect(throws: expected) { _ = try await events.next() }
    await #expect(throws: expected) { _ = try await updates.next() }
  }
}
