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
      let old = try Self.copyLogInClear(to: directory + "/old.jsonl")
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

  /// A copy of the sample as it was before sealing (its contacts in clear) at `path`.
  static func copyLogInClear(to path: String) throws -> String {
    try FileManager.default.copyItem(
      atPath: RepositoryFiles.root.appendingPathComponent(
        "Tests/Fixtures/sample-before-sealing.jsonl"
      ).path, toPath: path)
    return path
  }

  /// A migrate killed with SIGKILL leaves its temporary log and key store; a rerun refuses
  /// while that process lives (here: stopped), and removes them, saying so, once it is gone.
  @Test func aRerunRemovesWhatAKilledMigrateLeftAndRefusesWhileItRuns() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/big.jsonl"
      let generated = try ReplayProcess.run([
        "generate", "--events", "20000", "--seed", "killed", "--log", log, "--no-fsync",
      ])
      #expect(generated.status == 0, "\(generated.error)")
      let new = directory + "/new.jsonl"
      let arguments = ["migrate", "--encrypt-personal-data", "--output", new, "--log", log]
      let migrate = Process()
      migrate.executableURL = ReplayProcess.executable
      migrate.arguments = arguments
      migrate.standardOutput = FileHandle.nullDevice
      migrate.standardError = FileHandle.nullDevice
      try migrate.run()
      let pid = migrate.processIdentifier
      let temporary = new + ".migrating-\(pid)"
      var waited = 0
      while !FileManager.default.fileExists(atPath: temporary), migrate.isRunning, waited < 60_000 {
        usleep(1000)
        waited += 1
      }
      kill(pid, SIGSTOP)
      try #require(FileManager.default.fileExists(atPath: temporary), "caught mid-way")
      let whileRunning = try ReplayProcess.run(arguments)
      kill(pid, SIGKILL)
      migrate.waitUntilExit()
      #expect(whileRunning.status == 73)
      #expect(
        whileRunning.error.hasPrefix(
          "Error: cannot write '\(new)': another migrate (process \(pid)) is writing it now, in "
            + "'\(temporary)'; wait for it to end, or choose another --output"))
      #expect(FileManager.default.fileExists(atPath: new + ".keys"))
      #expect(!FileManager.default.fileExists(atPath: new))

      let rerun = try ReplayProcess.run(arguments)
      #expect(rerun.status == 0, "\(rerun.error)")
      #expect(
        rerun.error
          == "note: removed what a migrate that was killed (process \(pid)) left: "
          + "'\(new).keys', '\(temporary)'\n")
      #expect(rerun.output.hasPrefix("wrote '\(new)': 20000 events"))
      let files = try FileManager.default.contentsOfDirectory(atPath: directory)
      #expect(!files.contains { $0.contains(".migrating-") }, "\(files)")
      #expect(try ReplayProcess.run(["verify", "--log", new]).status == 0)
    }
  }

  /// A key store with no killed migrate beside it is not a leftover: still refused, untouched.
  @Test func aKeyStoreWithoutALeftoverIsStillRefused() throws {
    try withTemporaryDirectory { directory in
      let old = try Self.copyLogInClear(to: directory + "/old.jsonl")
      let new = directory + "/new.jsonl"
      try Data("keep".utf8).write(to: URL(fileURLWithPath: new + ".keys"))
      // A leftover of a live process (this one) is not removed either.
      let live = new + ".migrating-\(getpid())"
      try Data().write(to: URL(fileURLWithPath: live))
      let refused = try ReplayProcess.run([
        "migrate", "--encrypt-personal-data", "--output", new, "--log", old,
      ])
      #expect(refused.status == 73)
      #expect(refused.error.contains("another migrate (process \(getpid()))"))
      try FileManager.default.removeItem(atPath: live)
      let still = try ReplayProcess.run([
        "migrate", "--encrypt-personal-data", "--output", new, "--log", old,
      ])
      #expect(still.status == 73)
      #expect(still.error.contains("cannot write '\(new).keys': it exists"))
      #expect(fileBytes(new + ".keys") == Array("keep".utf8))
    }
  }
}
