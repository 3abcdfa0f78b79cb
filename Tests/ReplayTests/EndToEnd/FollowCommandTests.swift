import Foundation
import Testing

/// `replay log --follow` and `replay state --follow`, run as a user runs them, with the events
/// appended by other `replay` processes.
@Suite struct FollowCommandTests {
  /// Starts `replay` with `arguments` in the background, its output going to `output`.
  func start(_ arguments: [String], output: String) throws -> Process {
    let process = Process()
    process.executableURL = ReplayProcess.executable
    process.arguments = arguments
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// Waits up to 10 s for `output` to hold `lines` lines; returns them.
  func lines(of output: String, atLeast lines: Int) -> [Substring] {
    let deadline = Date().addingTimeInterval(10)
    while true {
      let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      let found = text.split(separator: "\n")
      if found.count >= lines || Date() > deadline { return found }
      usleep(5000)
    }
  }

  @Test func logFollowPrintsWhatOtherProcessesAppend() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try FileManager.default.copyItem(atPath: RepositoryFiles.sampleLog, toPath: log)
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.sampleLog + ".keys", toPath: log + ".keys")
      let output = directory + "/out.jsonl"
      let follower = try start(
        ["log", "--follow", "--json", "--log", log, "--from", "147", "--category", "contact"],
        output: output)
      defer { if follower.isRunning { follower.terminate() } }
      #expect(lines(of: output, atLeast: 1).count == 1)
      try ReplayProcess.run(["contacts", "favorite", "13", "--log", log])
      try ReplayProcess.run([
        "locations", "add", "--name", "Here", "--latitude", "1", "--longitude", "2", "--log", log,
      ])
      try ReplayProcess.run(["contacts", "unfavorite", "13", "--log", log])
      let seen = lines(of: output, atLeast: 3)
      #expect(seen.count == 3)
      #expect(seen.map { $0.contains(#""stream":"contact-13""#) } == [true, true, true])
      #expect(
        seen.map { $0.prefix(while: { $0 != "," }) } == [
          #"{"seq":147"#, #"{"seq":148"#, #"{"seq":150"#,
        ])
      // SIGTERM (as Ctrl-C's SIGINT) ends it cleanly.
      follower.terminate()
      follower.waitUntilExit()
      #expect(follower.terminationStatus == 0)
    }
  }

  @Test func logFollowEndsWhenItsPipeCloses() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try FileManager.default.copyItem(atPath: RepositoryFiles.sampleLog, toPath: log)
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.sampleLog + ".keys", toPath: log + ".keys")
      // `head` exits after three lines; `replay` must notice and end, with no new event.
      let shell = Process()
      shell.executableURL = URL(fileURLWithPath: "/bin/sh")
      shell.arguments = [
        "-c",
        "timeout 20 '\(ReplayProcess.executable.path)' log -f --json --log '\(log)' | head -3 > '\(directory)/head.txt'",
      ]
      try shell.run()
      shell.waitUntilExit()
      #expect(shell.terminationStatus == 0)
      let head = try String(contentsOfFile: directory + "/head.txt", encoding: .utf8)
      #expect(head.split(separator: "\n").count == 3)
    }
  }

  @Test func stateFollowPrintsANewDocumentAfterEachChange() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try FileManager.default.copyItem(atPath: RepositoryFiles.sampleLog, toPath: log)
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.sampleLog + ".keys", toPath: log + ".keys")
      let output = directory + "/state.jsonl"
      let follower = try start(
        ["state", "contacts", "--follow", "--json", "--log", log], output: output)
      defer { if follower.isRunning { follower.terminate() } }
      let first = lines(of: output, atLeast: 1)
      #expect(first.count == 1)
      try ReplayProcess.run(["contacts", "favorite", "13", "--log", log])
      let both = lines(of: output, atLeast: 2)
      #expect(both.count == 2)
      // The second document is the state a fresh `state --json` prints.
      let fresh = try ReplayProcess.run(["state", "contacts", "--json", "--log", log])
      #expect(both.last.map(String.init) == fresh.output.trimmingCharacters(in: .newlines))
      follower.terminate()
      follower.waitUntilExit()
    }
  }

  @Test func logFollowWithToEndsAtThatSeqWithoutWaiting() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try FileManager.default.copyItem(atPath: RepositoryFiles.sampleLog, toPath: log)
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.sampleLog + ".keys", toPath: log + ".keys")
      // seq 147 is the last event: nothing after it will come, and none is waited for.
      let result = try ReplayProcess.run(
        ["log", "-f", "--json", "--from", "145", "--to", "147", "--log", log])
      #expect(result.status == 0)
      #expect(result.output.split(separator: "\n").count == 3)
      let filtered = try ReplayProcess.run(
        ["log", "-f", "--json", "--to", "147", "--category", "state", "--log", log])
      #expect(filtered.status == 0)
    }
  }

  @Test func aReplacedLogEndsTheFollowWithExitCode74() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try FileManager.default.copyItem(atPath: RepositoryFiles.sampleLog, toPath: log)
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.sampleLog + ".keys", toPath: log + ".keys")
      let output = directory + "/out.txt"
      let follower = try start(["log", "-f", "--json", "--log", log], output: output)
      defer { if follower.isRunning { follower.terminate() } }
      #expect(lines(of: output, atLeast: 147).count == 147)
      let copy = directory + "/copy.jsonl"
      try FileManager.default.copyItem(atPath: log, toPath: copy)
      _ = rename(copy, log)
      let deadline = Date().addingTimeInterval(10)
      while follower.isRunning, Date() < deadline { usleep(10_000) }
      #expect(!follower.isRunning)
      if !follower.isRunning { #expect(follower.terminationStatus == 74) }
    }
  }

  @Test func badFollowInputIsAUsageError() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try FileManager.default.copyItem(atPath: RepositoryFiles.sampleLog, toPath: log)
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.sampleLog + ".keys", toPath: log + ".keys")
      let bad = try ReplayProcess.run(["log", "-f", "--from", "yesterday", "--log", log])
      #expect(bad.status == 64)
      #expect(bad.error.contains("expected a seq (a whole number ≥ 1) or an ISO 8601 time"))
      let point = try ReplayProcess.run(["state", "contacts", "-f", "--at", "3", "--log", log])
      #expect(point.status == 64)
      #expect(point.error.contains("leave out '--at' and '--as-of'"))
    }
  }
}
