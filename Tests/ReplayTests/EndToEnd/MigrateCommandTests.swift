import Foundation
import Testing

/// What `replay migrate` says about the old log: only what is true of it.
@Suite struct MigrateCommandTests {
  @Test func aLogSealedAlreadyIsNotSaidToHoldDataInClear() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let new = directory + "/new.jsonl"
      let result = try ReplayProcess.run(
        ["migrate", "--encrypt-personal-data", "--output", new, "--log", log])
      #expect(result.status == 0, "\(result.error)")
      #expect(!result.output.contains("in clear, with"))
      #expect(result.output.contains("0 contact payloads sealed, 18 already sealed"))
      #expect(
        result.output.hasSuffix(
          "the old log '\(log)' held no personal data in clear (it was sealed already), but its "
            + "key store '\(log).keys' still holds the 18 keys carried over: an erasure in the "
            + "new log is complete only once the old log, its key store and checkpoints (and "
            + "their backups) are deleted\n"))
    }
  }

  @Test func anOutputInAMissingFolderIs73AndAnEmptyOneIsAUsageError() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let output = directory + "/nodir/x.jsonl"
      let missing = try ReplayProcess.run(
        ["migrate", "--encrypt-personal-data", "--output", output, "--log", log])
      #expect(missing.status == 73)
      #expect(
        missing.error
          == "Error: cannot write '\(output)': its folder '\(directory)/nodir' does not exist; "
          + "create it first\n")
      let empty = try ReplayProcess.run(
        ["migrate", "--encrypt-personal-data", "--output", "", "--log", log])
      #expect(empty.status == 64)
      #expect(
        empty.error.hasPrefix(
          "Error: '--output' is empty: give the path of the new log to write\n"))
      let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
      #expect(left == ["sample.jsonl", "sample.jsonl.keys"])
    }
  }

  @Test func aLogWithoutContactsHeldNothingInClear() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let added = try ReplayProcess.run(
        [
          "locations", "add", "--name", "Lima", "--latitude", "-12.05", "--longitude", "-77.04",
          "--log", log,
        ])
      #expect(added.status == 0, "\(added.error)")
      let new = directory + "/new.jsonl"
      let result = try ReplayProcess.run(
        ["migrate", "--encrypt-personal-data", "--output", new, "--log", log])
      #expect(result.status == 0, "\(result.error)")
      #expect(result.output.hasSuffix("the old log '\(log)' held no personal data in clear\n"))
    }
  }

  @Test func aLogInClearIsSaidToHoldItStill() throws {
    try withTemporaryDirectory { directory in
      let old = directory + "/old.jsonl"
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.root.appendingPathComponent(
          "Tests/Fixtures/sample-before-sealing.jsonl"
        ).path, toPath: old)
      let result = try ReplayProcess.run(
        ["migrate", "--encrypt-personal-data", "--output", directory + "/new.jsonl", "--log", old])
      #expect(result.status == 0, "\(result.error)")
      #expect(
        result.output.hasSuffix(
          "the old log '\(old)' still holds the personal data in clear, with its checkpoints "
            + "and index; deleting it (and its backups) is your step, and erasures are complete "
            + "only then\n"))
    }
  }
}
