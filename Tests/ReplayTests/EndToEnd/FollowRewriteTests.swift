import Engine
import Events
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `replay log -f` and `replay state -f` on a log that another process rewrites in place: they
/// stop with exit status 74 and say what no longer matches, instead of going on with stale events.
@Suite struct FollowRewriteTests {
  /// Appends `ContactFavorited` of contacts `first..<first + count` (one digit each, so lines of
  /// other runs have the same lengths).
  func favorite(_ log: EventLog, _ first: Int, count: Int) throws {
    for contact in first..<(first + count) {
      try log.append(
        [ProposedEvent(type: "ContactFavorited", data: Array(#"{"id":"\#(contact)"}"#.utf8))],
        to: "contact-\(contact)")
    }
  }

  /// The byte offset where each line of the file at `path` starts, then its size.
  func lineStarts(_ path: String) throws -> [Int64] {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    return [0] + bytes.enumerated().filter { $0.element == 0x0A }.map { Int64($0.offset + 1) }
  }

  /// Waits up to 10 s for `condition` on the text of the file at `path`.
  @discardableResult
  func wait(for path: String, until condition: (String) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while true {
      let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
      if condition(text) { return true }
      if Date() > deadline { return false }
      usleep(5000)
    }
  }

  @Test(arguments: [["log", "--follow", "--json"], ["state", "contacts", "--follow", "--json"]])
  func aFollowStopsWithExitStatus74WhenTheLogIsRewrittenInPlace(command: [String]) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let configuration = EventLog.Configuration(syncPolicy: .never)
      let log = try EventLog(path: path, configuration: configuration)
      try favorite(log, 0, count: 4)

      let process = Process()
      process.executableURL = ReplayProcess.executable
      process.arguments = command + ["--log", path]
      let output = directory + "/out.txt"
      let errors = directory + "/err.txt"
      _ = FileManager.default.createFile(atPath: output, contents: nil)
      _ = FileManager.default.createFile(atPath: errors, contents: nil)
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
      try process.run()
      defer { if process.isRunning { process.terminate() } }

      // One more event once the first output is out, so that the follower has read seq 5.
      try #require(wait(for: output) { !$0.isEmpty })
      let shown = try String(contentsOfFile: output, encoding: .utf8).count
      try favorite(log, 4, count: 1)
      try #require(
        wait(for: output) {
          command[0] == "log" ? $0.contains(#"{"seq":5,"#) : $0.count > shown && $0.hasSuffix("\n")
        })
      let starts = try lineStarts(path)

      // Another writer, holding the log's lock as `EventLog` does, cuts it back to seq 2 and
      // writes three other events (of the same lengths) in place of seqs 3 to 5, then one more.
      let keptEnd = Int(starts[2])
      let scratch = directory + "/other.jsonl"
      try Data(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(keptEnd))
        .write(to: URL(fileURLWithPath: scratch))
      try favorite(EventLog(path: scratch, configuration: configuration), 7, count: 4)
      let replacement = try Data(contentsOf: URL(fileURLWithPath: scratch)).dropFirst(keptEnd)
      let file = open(path, O_RDWR)
      try #require(file >= 0)
      try #require(flock(file, LOCK_EX) == 0)
      #expect(ftruncate(file, off_t(keptEnd)) == 0)
      let written = replacement.withUnsafeBytes {
        pwrite(file, $0.baseAddress, $0.count, off_t(keptEnd))
      }
      #expect(written == replacement.count)
      flock(file, LOCK_UN)
      close(file)

      let deadline = Date().addingTimeInterval(10)
      while process.isRunning, Date() < deadline { usleep(5000) }
      try #require(!process.isRunning)
      #expect(process.terminationStatus == 74)
      let message = try String(contentsOfFile: errors, encoding: .utf8)
      #expect(
        message.hasPrefix(
          "Error: '\(path)' was rewritten in place while it was followed: the line of seq 5 at byte \(starts[4]) is no longer the one delivered"
        ))
      #expect(message.contains("restart the follower"))
      // Nothing of the other history was shown.
      #expect(try !String(contentsOfFile: output, encoding: .utf8).contains("contact-7"))
    }
  }
}
