import Foundation
import ReplayTestSupport
import Testing

/// Two copies of one log that went separate ways, with every line after the fork but one the
/// same bytes at the same offsets (a fixed clock and id seed): a cache of one copy put beside
/// the other is never used, however many sampled lines they share.
@Suite struct ForkedSidecarTests {
  /// Runs `replay` on `log` with a clock after the sample's last event and fixed ids.
  @discardableResult
  func run(_ arguments: [String], log: String) throws -> ReplayProcess.Result {
    try ReplayProcess.run(
      arguments + ["--log", log],
      environment: ["REPLAY_CLOCK": "2026-11-20T09:00:00Z", "REPLAY_ID_SEED": "fork"])
  }

  /// An events file of 4,200 events (enough for the writer to save its index).
  func eventsFile(in directory: String) throws -> String {
    var lines = [#"{"stream":"state-Forkland","type":"StateAdded","data":{"state":"Forkland"}}"#]
    for number in 0..<4199 {
      lines.append(
        #"{"stream":"state-Forkland","type":"ZipCodeAdded","data":{"state":"Forkland","zipCode":"\#(10000 + number)"}}"#
      )
    }
    let path = directory + "/events.jsonl"
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Copies A and B: A favours contact 1, B contact 2, then both take the same 4,200 events.
  func forkedCopies(in directory: String) throws -> (a: String, b: String) {
    let a = try RepositoryFiles.copySampleLog(to: directory, as: "a.jsonl")
    let b = try RepositoryFiles.copySampleLog(to: directory, as: "b.jsonl")
    #expect(try run(["contacts", "favorite", "1"], log: a).status == 0)
    #expect(try run(["contacts", "favorite", "2"], log: b).status == 0)
    let events = try eventsFile(in: directory)
    for log in [a, b] {
      let appended = try run(["append", "--file", events], log: log)
      #expect(appended.status == 0, "\(appended.error)")
    }
    // The fork is one line: same size, same last line.
    let bytesA = fileBytes(a)
    let bytesB = fileBytes(b)
    #expect(bytesA.count == bytesB.count)
    let differ = bytesA != bytesB
    let sameEnd = bytesA.suffix(300) == bytesB.suffix(300)
    #expect(differ && sameEnd)
    return (a, b)
  }

  @Test func anotherCopysIndexIsNotUsed() throws {
    try withTemporaryDirectory { directory in
      let (a, b) = try forkedCopies(in: directory)
      #expect(FileManager.default.fileExists(atPath: a + ".index"))
      try? FileManager.default.removeItem(atPath: b + ".index")
      try FileManager.default.copyItem(atPath: a + ".index", toPath: b + ".index")

      let history = try run(["history", "contact-2", "--json"], log: b)
      #expect(history.status == 0)
      #expect(history.output.contains("ContactFavorited"), "\(history.output)")
      let unfavorite = try run(["contacts", "unfavorite", "2"], log: b)
      #expect(unfavorite.status == 0, "\(unfavorite.error)")
      let verified = try run(["verify"], log: b)
      #expect(verified.status == 0, "\(verified.output)\(verified.error)")
      let state = try run(["state", "contacts", "--id", "2", "--json", "--no-checkpoints"], log: b)
      #expect(
        state.output.contains(#"{"name":"isFavorite","value":false}"#),
        "\(state.output.prefix(500))")
    }
  }

  @Test func anotherCopysCheckpointsAreNotUsed() throws {
    try withTemporaryDirectory { directory in
      let (a, b) = try forkedCopies(in: directory)
      #expect(try run(["checkpoint"], log: a).status == 0)
      try? FileManager.default.removeItem(atPath: b + ".checkpoints")
      try FileManager.default.copyItem(atPath: a + ".checkpoints", toPath: b + ".checkpoints")

      let state = try run(["state", "contacts", "--json", "--verbose"], log: b)
      #expect(state.status == 0, "\(state.error)")
      #expect(state.error.contains("made for another file"), "\(state.error)")
      let expected = try run(["state", "contacts", "--json", "--no-checkpoints"], log: b)
      #expect(state.output == expected.output)
      #expect(state.output != (try run(["state", "contacts", "--json"], log: a)).output)

      // A checkpoint saved on B removes A's before binding the folder to B.
      #expect(try run(["checkpoint"], log: b).status == 0)
      let again = try run(["state", "contacts", "--json", "--verbose"], log: b)
      #expect(again.output == expected.output)
      #expect(!again.error.contains("ignored"), "\(again.error)")
    }
  }

  /// A tree of another copy would give this copy the other's root, signed.
  @Test func anotherCopysTreeIsNotUsed() throws {
    try withTemporaryDirectory { directory in
      let (a, b) = try forkedCopies(in: directory)
      let headA = try run(["head", "--json"], log: a)
      #expect(headA.status == 0, "\(headA.error)")
      let own = try run(["head", "--json"], log: b)
      #expect(own.output != headA.output)
      try? FileManager.default.removeItem(atPath: b + ".tree")
      try FileManager.default.copyItem(atPath: a + ".tree", toPath: b + ".tree")
      let headB = try run(["head", "--json"], log: b)
      #expect(headB.status == 0, "\(headB.error)")
      #expect(headB.output == own.output)
      let proofA = try run(["prove", "148", "--json"], log: a)
      try? FileManager.default.removeItem(atPath: b + ".tree")
      try FileManager.default.copyItem(atPath: a + ".tree", toPath: b + ".tree")
      let proofB = try run(["prove", "148", "--json"], log: b)
      #expect(proofB.status == 0)
      #expect(proofB.output != proofA.output)
    }
  }

  @Test func aCheckpointFolderThatNamesNoFileIsNotUsed() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      #expect(try run(["checkpoint"], log: log).status == 0)
      try FileManager.default.removeItem(atPath: log + ".checkpoints/log-file")
      let state = try run(["state", "--verbose"], log: log)
      #expect(state.status == 0)
      #expect(state.error.contains("does not say which log file"), "\(state.error)")
    }
  }
}
