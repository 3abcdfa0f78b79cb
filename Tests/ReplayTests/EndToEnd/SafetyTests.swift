import Foundation
import Testing

/// Appends one favourite toggle to `log`, reproducibly.
@discardableResult
private func favorite(_ log: String, clock: String? = nil) throws -> ReplayProcess.Result {
  var arguments = [
    "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
    #"{"id":"1"}"#, "--no-fsync",
  ]
  if let clock { arguments += ["--clock", clock] }
  return try ReplayProcess.run(arguments, environment: ["REPLAY_ID_SEED": "safety"])
}

@Suite struct WriterSafetyTests {
  @Test func aDomainCommandOnAJSONFileExits74AndLeavesItUntouched() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/c.json"
      try Data(#"{"important":1}"#.utf8 + [0x0A]).write(to: URL(fileURLWithPath: path))
      let result = try ReplayProcess.run(["contacts", "favorite", "1", "--log", path])
      #expect(result.status == 74)
      #expect(result.error.contains("'\(path)' is not an event log"))
      #expect(fileBytes(path) == Array(#"{"important":1}"#.utf8) + [0x0A])
    }
  }

  @Test func aFIFOAsTheLogIsRefusedAtOnce() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/fifo"
      #expect(mkfifo(path, 0o644) == 0)
      for arguments in [["state", "--log", path], ["verify", "--log", path]] {
        let result = try ReplayProcess.run(arguments)
        #expect(result.status == 74)
        #expect(result.error.contains("a FIFO"))
      }
      let append = try favorite(path)
      #expect(append.status == 74)
    }
  }

  @Test func anExplicitClockEarlierThanTheLastEventIsRefusedNamingBothTimes() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      #expect(try favorite(log, clock: "2026-11-01T09:00:00Z").status == 0)
      let before = fileBytes(log)
      let result = try favorite(log, clock: "2026-10-01T09:00:00Z")
      #expect(result.status == 65)
      #expect(result.error.contains("2026-10-01T09:00:00.000Z"))
      #expect(result.error.contains("2026-11-01T09:00:00.000Z"))
      #expect(fileBytes(log) == before)
    }
  }

  @Test func repairShowsByDefaultAndCutsIntoQuarantineWithApply() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      for _ in 0..<3 { #expect(try favorite(log).status == 0) }
      var bytes = fileBytes(log)
      bytes[bytes.count - 4] = bytes[bytes.count - 4] == 0x30 ? 0x31 : 0x30
      try Data(bytes).write(to: URL(fileURLWithPath: log))
      let refused = try favorite(log)
      #expect(refused.status == 74)
      #expect(refused.error.contains("replay repair"))
      let shown = try ReplayProcess.run(["repair", "--log", log])
      #expect(shown.status == 74)
      #expect(shown.output.contains("would cut"))
      #expect(fileBytes(log) == bytes)
      let applied = try ReplayProcess.run(["repair", "--log", log, "--apply"])
      #expect(applied.status == 0, "\(applied.error)")
      #expect(applied.output.hasPrefix("cut "))
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0)
      #expect(verify.output.hasPrefix("ok: 2 events"))
      #expect(verify.error.contains(".quarantine/"))
      #expect(try favorite(log).output == "3\n")
    }
  }

  @Test func aFileSizeLimitMidImportExits74WithAMessageAndLeavesTheLogAsItWas() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      #expect(try favorite(log).status == 0)
      let before = fileBytes(log)
      let source = directory + "/events-in.jsonl"
      var lines = ""
      for index in 0..<2000 {
        lines +=
          #"{"stream":"contact-\#(index)","type":"ContactFavorited","data":{"id":"\#(index)"}}"#
          + "\n"
      }
      try Data(lines.utf8).write(to: URL(fileURLWithPath: source))
      let result = try runShell(
        "ulimit -f 64; exec '\(ReplayProcess.executable.path)' append --log '\(log)' --file '\(source)' --no-fsync"
      )
      #expect(result.status == 74, "\(result.error)")
      #expect(result.error.contains("File too large"))
      #expect(fileBytes(log) == before)
    }
  }
}

/// A log of one event and then one atomic write of three (seq 2...4).
private func logWithAWriteOfThree(
  in directory: String, clock: String = "2026-11-01T09:00:00Z"
) throws -> String {
  let log = directory + "/events.jsonl"
  #expect(try favorite(log, clock: clock).status == 0)
  let source = directory + "/three.jsonl"
  var lines = ""
  for index in 5...7 {
    lines +=
      #"{"stream":"contact-\#(index)","type":"ContactFavorited","data":{"id":"\#(index)"}}"# + "\n"
  }
  try Data(lines.utf8).write(to: URL(fileURLWithPath: source))
  let append = try ReplayProcess.run(
    ["append", "--log", log, "--file", source, "--no-fsync"],
    environment: ["REPLAY_CLOCK": clock, "REPLAY_ID_SEED": "safety"])
  #expect(append.status == 0, "\(append.error)")
  return log
}

@Suite struct ReadSafetyTests {
  @Test(arguments: ["2", "3"])
  func stateAtASeqInsideAnAtomicWriteIsRefusedNamingTheWrite(_ seq: String) throws {
    try withTemporaryDirectory { directory in
      let log = try logWithAWriteOfThree(in: directory)
      for arguments in [
        ["state", "contacts", "--log", log, "--at", seq],
        ["diff", "contacts", "--log", log, "--from", "1", "--to", seq],
      ] {
        let result = try ReplayProcess.run(arguments)
        #expect(result.status == 65, "\(arguments): \(result.error)")
        #expect(result.error.contains("inside the atomic write of events 2...4"), "\(result.error)")
      }
      #expect(try ReplayProcess.run(["state", "contacts", "--log", log, "--at", "4"]).status == 0)
      #expect(try ReplayProcess.run(["state", "contacts", "--log", log, "--at", "1"]).status == 0)
    }
  }

  @Test func aLogCutAtALineBoundaryBelowACheckpointIsReportedShorterThanItWas() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithAWriteOfThree(in: directory)
      #expect(try ReplayProcess.run(["checkpoint", "--log", log]).status == 0)
      let bytes = fileBytes(log)
      let firstLineEnd = try #require(bytes.firstIndex(of: 0x0A)) + 1
      try Data(bytes[..<firstLineEnd]).write(to: URL(fileURLWithPath: log))
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 74)
      #expect(verify.output.contains("the log is shorter than it was"))
      let state = try ReplayProcess.run(["state", "contacts", "--log", log])
      #expect(state.error.contains("the log is shorter than it was"))
    }
  }

  @Test func verifyRehashesCheckpointPrefixesAndReportsAChangedLine() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithAWriteOfThree(in: directory)
      #expect(try ReplayProcess.run(["checkpoint", "--log", log]).status == 0)
      #expect(try ReplayProcess.run(["verify", "--log", log]).status == 0)
      // The same events stamped a day later: every line is valid, of the same length, but
      // not the lines the checkpoint was built from.
      let other = directory + "/other"
      try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
      let later = try logWithAWriteOfThree(in: other, clock: "2026-11-02T09:00:00Z")
      #expect(fileBytes(later).count == fileBytes(log).count)
      try Data(fileBytes(later)).write(to: URL(fileURLWithPath: log))
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 74)
      #expect(verify.output.contains("checkpoint"))
    }
  }
}

@Suite struct OutputSafetyTests {
  @Test func checkpointFailsWhenItsFolderIsAFile() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithAWriteOfThree(in: directory)
      try Data().write(to: URL(fileURLWithPath: log + ".checkpoints"))
      let result = try ReplayProcess.run(["checkpoint", "--log", log])
      #expect(result.status == 73)
      #expect(result.error.contains("is a file"))
    }
  }

  @Test func checkpointFailsWhenTheDiskIsFull() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithAWriteOfThree(in: directory)
      let result = try runShell(
        "ulimit -f 0; exec '\(ReplayProcess.executable.path)' checkpoint --log '\(log)'")
      #expect(result.status == 73, "\(result.error)")
      #expect(result.error.contains("could not save a checkpoint"))
    }
  }

  @Test func exportToACharacterDeviceWritesIntoItAndLeavesItADevice() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithAWriteOfThree(in: directory)
      let result = try ReplayProcess.run([
        "export", "contacts", "--log", log, "--output", "/dev/null",
      ])
      #expect(result.status == 0, "\(result.error)")
      var info = stat()
      #expect(stat("/dev/null", &info) == 0)
      #expect((info.st_mode & S_IFMT) == S_IFCHR)
    }
  }

  @Test func exportThroughASymbolicLinkReplacesItsTargetAndKeepsTheLink() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithAWriteOfThree(in: directory)
      let target = directory + "/real.json"
      let link = directory + "/link.json"
      try Data("old".utf8).write(to: URL(fileURLWithPath: target))
      #expect(symlink("real.json", link) == 0)
      let result = try ReplayProcess.run(["export", "contacts", "--log", log, "--output", link])
      #expect(result.status == 0, "\(result.error)")
      #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "real.json")
      #expect(String(decoding: fileBytes(target), as: UTF8.self).hasPrefix("["))
    }
  }
}

/// Runs a `bash -c` script; returns its status and standard error.
private func runShell(_ script: String) throws -> (status: Int32, error: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/bash")
  process.arguments = ["-c", script]
  let errorPipe = Pipe()
  process.standardError = errorPipe
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  let error = errorPipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: error, as: UTF8.self))
}
