import Engine
import Events
import Foundation
import Projections
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Erasure beyond the quiet path (issue 32): checkpoints saved before or during the erasure,
/// temporary files of killed processes, a crash between the `ContactErased` and the key's
/// destruction, a refused erasure, folders an unprivileged user cannot write, and `kill -9` at
/// random instants. After each: no output of any command and no file beside the log holds a
/// personal value of the erased contact in clear, and the next writer can always go on.
/// The suite runs its tests one at a time: each waits on processes for long stretches, and two
/// at once would hold both of a 2-core machine's shared concurrency threads. CI runs its slow
/// sweeps on their own, after the rest of the release suite (`.ci/run`).
@Suite(.serialized) struct ErasureUnderFireTests {
  /// Miss Piggy (contact 13 of the sample log): values that must never be seen once erased.
  static let personalValues = ErasureCommandTests.personalValues.filter {
    // Generated events hold the same mail domain (contacts of her company) and zip code (a
    // state's zip codes), which are not hers alone.
    $0 != "muppetsbaby.com" && $0 != "85034"
  }

  /// A copy of the shipped sample log and its key store in `directory`.
  static func sampleCopy(in directory: String) throws -> String {
    try RepositoryFiles.copySampleLog(to: directory)
  }

  /// Every file under `directory` (but `except`) whose bytes hold a personal value in clear.
  static func filesHoldingPersonalData(
    in directory: String, except: Set<String> = []
  ) -> [String] {
    var found: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: directory)
    while let name = enumerator?.nextObject() as? String {
      let path = directory + "/" + name
      guard !except.contains(path) else { continue }
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { continue }
      let text = String(decoding: fileBytes(path), as: UTF8.self)
      for value in personalValues where text.contains(value) {
        found.append("\(name) holds '\(value)'")
      }
    }
    return found
  }

  /// What every reader shows of contact 13; each output must hold no personal value.
  static func readerOutputs(_ session: FireSession, scratch: String) throws -> [(String, String)] {
    var outputs: [(String, String)] = []
    for arguments in [
      ["state", "contacts", "--json"], ["state", "contacts", "--at", "140", "--json"],
      ["state", "contacts", "--id", "13", "--at", "147", "--json"],
      ["history", "contact-13"], ["history", "contact-13", "--json"],
      ["diff", "contacts", "--from", "119", "--to", "137"], ["log", "--json"],
    ] {
      let result = try session.run(arguments)
      outputs.append((arguments.joined(separator: " "), result.output + result.error))
    }
    let export = scratch + "/export.json"
    let exported = try session.run(["export", "contacts", "--at", "147", "--output", export])
    outputs.append(
      ("export --at 147", exported.error + String(decoding: fileBytes(export), as: UTF8.self)))
    let report = scratch + "/report.html"
    let reported = try session.run(["report", "--output", report])
    outputs.append(("report", reported.error + String(decoding: fileBytes(report), as: UTF8.self)))
    return outputs
  }

  static func expectNoPersonalValues(_ outputs: [(String, String)], _ context: String) {
    for (command, output) in outputs {
      for value in personalValues where output.contains(value) {
        Issue.record("\(context): '\(command)' shows '\(value)'")
      }
    }
  }

  @Test func checkpointsHoldNoPersonalDataAndOldOnesShowTheErasedContactAsErased() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      let session = FireSession(log: log)
      #expect(try session.run(["checkpoint", "--every", "20"]).status == 0)
      // Sealed in every checkpoint from the start: nothing in clear beside the log.
      #expect(Self.filesHoldingPersonalData(in: directory) == [])
      let before = try session.run(["state", "contacts", "--id", "13", "--at", "140", "--json"])
      #expect(before.output.contains("Miss Piggy"), "\(before.error)")
      // What a reader racing the erasure, a killed reader or a backup keeps: the checkpoints
      // as they were before it, and a dead saver's temporary file.
      let saved = directory + "/saved"
      try FileManager.default.copyItem(atPath: log + ".checkpoints", toPath: saved)

      let erased = try session.run(["contacts", "erase", "13", "--actor", "dpo"])
      #expect(erased.status == 0, "\(erased.error)")
      let folder = log + ".checkpoints"
      for name in try FileManager.default.contentsOfDirectory(atPath: saved) {
        try? FileManager.default.removeItem(atPath: folder + "/" + name)
        try FileManager.default.copyItem(atPath: saved + "/" + name, toPath: folder + "/" + name)
      }
      try FileManager.default.copyItem(
        atPath: saved + "/seq-000000000140.ckpt",
        toPath: folder + "/seq-000000000140.ckpt.tmp-4194303")
      try FileManager.default.removeItem(atPath: saved)

      let restored = try session.run(
        ["state", "contacts", "--id", "13", "--at", "140", "--json", "--verbose"])
      #expect(
        restored.error.contains("starting from the checkpoint at seq 140"), "\(restored.error)")
      #expect(restored.output.contains(#""name","value":"(erased)""#), "\(restored.output)")
      Self.expectNoPersonalValues(try Self.readerOutputs(session, scratch: directory), "restored")
      #expect(Self.filesHoldingPersonalData(in: directory) == [])
      // The next erasure removes the dead saver's temporary file with the checkpoints.
      _ = try session.run(["contacts", "erase", "9", "--actor", "dpo"])
      #expect(
        !FileManager.default.fileExists(atPath: folder + "/seq-000000000140.ckpt.tmp-4194303"))
    }
  }

  @Test func aReaderHonoursAnErasureTheLogRecordsBeforeTheKeyIsDestroyed() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      let session = FireSession(log: log)
      // The state a crash leaves between steps 3 and 4: the ContactErased in the log, the
      // key store still holding the key, ending with the erasure's mark.
      let appended = try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "contact-13", "--type", "ContactErased", "--data",
          #"{"id":"13"}"#, "--actor", "dpo",
        ], environment: ["REPLAY_CLOCK": "2026-11-09T00:00:00Z"])
      #expect(appended.status == 0, "\(appended.error)")
      var store = try KeyStore(logPath: log)
      try store.beginErasure(contact: "13")
      let key = try #require(store.key(forContact: "13"))
      Self.expectNoPersonalValues(try Self.readerOutputs(session, scratch: directory), "marked")
      // The next writer destroys the key, as `append` did above.
      let next = try session.run(["contacts", "favorite", "1"])
      #expect(next.error.contains("finished erasing contact 13"), "\(next.error)")
      let after = try KeyStore(logPath: log)
      #expect(after.lookup(key.id) == .erased(contact: "13"))
      #expect(after.pendingErasures.isEmpty)
      Self.expectNoPersonalValues(try Self.readerOutputs(session, scratch: directory), "finished")
    }
  }

  @Test func aRefusedErasureLeavesNothingBehind() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      let keys = fileBytes(log + ".keys")
      let bytes = fileBytes(log)
      let refused = try ReplayProcess.run(
        ["contacts", "erase", "13", "--log", log, "--actor", "dpo"],
        environment: ["REPLAY_CLOCK": "2020-01-01T00:00:00Z"])
      #expect(refused.status == 65, "\(refused.error)")
      #expect(fileBytes(log + ".keys") == keys)
      #expect(fileBytes(log) == bytes)
      let next = try FireSession(log: log).run(["contacts", "favorite", "1"])
      #expect(next.status == 0)
      #expect(!next.error.contains("crash"), "\(next.error)")
    }
  }

  @Test func leftoverCopiesOfTheKeyStoreNeverOutliveAnErasure() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      // Temporary copies a killed rewrite leaves, in this version's naming and the earlier one.
      let copies = [
        log + ".keys.tmp-4194303-0123456789abcdef", directory + "/.sample.jsonl.keys.77-ab.tmp",
      ]
      for copy in copies { try FileManager.default.copyItem(atPath: log + ".keys", toPath: copy) }
      let erased = try FireSession(log: log).run(["contacts", "erase", "9", "--actor", "dpo"])
      #expect(erased.status == 0, "\(erased.error)")
      for copy in copies { #expect(!FileManager.default.fileExists(atPath: copy), "\(copy)") }
      // No file in the folder opens Kermit's data as the key store.
      let trial = directory + "/trial"
      try FileManager.default.createDirectory(atPath: trial, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: log, toPath: trial + "/events.jsonl")
      for name in try FileManager.default.contentsOfDirectory(atPath: directory)
      where name != "trial" && name != "sample.jsonl" {
        try? FileManager.default.removeItem(atPath: trial + "/events.jsonl.keys")
        try FileManager.default.copyItem(
          atPath: directory + "/" + name, toPath: trial + "/events.jsonl.keys")
        let history = try FireSession(log: trial + "/events.jsonl").run(["history", "contact-9"])
        #expect(!history.output.contains("Kermit"), "\(name) opens contact 9's data")
      }
    }
  }

  /// Runs `arguments` as the unprivileged user `nobody` (CI runs as root), or `nil` when this
  /// process cannot switch user.
  static func runAsNobody(_ arguments: [String]) throws -> ReplayProcess.Result? {
    let setpriv = "/usr/bin/setpriv"
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
    return try ReplayProcess.run(
      ["--reuid=65534", "--regid=65534", "--clear-groups", ReplayProcess.executable.path]
        + arguments, executable: URL(fileURLWithPath: setpriv))
  }

  @Test func aFolderTheEraserCannotWriteStopsItBeforeAnythingIsAppended() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      chmod(directory, 0o755)
      chmod(log, 0o666)
      chmod(log + ".keys", 0o666)
      let bytes = fileBytes(log)
      let keys = fileBytes(log + ".keys")
      guard let result = try Self.runAsNobody(["contacts", "erase", "13", "--log", log]) else {
        print("skipped: not root, or no setpriv")
        return
      }
      #expect(result.status == 74, "\(result.error)")
      #expect(result.error.contains("nothing was appended"), "\(result.error)")
      #expect(fileBytes(log) == bytes, "the log changed")
      #expect(fileBytes(log + ".keys") == keys, "the key store changed")
      // Once the folder is writable, the erasure goes through.
      chmod(directory, 0o777)
      let again = try Self.runAsNobody(["contacts", "erase", "13", "--log", log])
      #expect(again?.status == 0, "\(again?.error ?? "")")
      Self.expectNoPersonalValues(
        try Self.readerOutputs(FireSession(log: log), scratch: directory), "after")
    }
  }

  @Test func aKeyStoreTheEraserCannotWriteStopsItBeforeAnythingIsAppended() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      chmod(directory, 0o777)
      chmod(log, 0o666)
      chmod(log + ".keys", 0o644)
      let bytes = fileBytes(log)
      let keys = fileBytes(log + ".keys")
      guard let result = try Self.runAsNobody(["contacts", "erase", "13", "--log", log]) else {
        print("skipped: not root, or no setpriv")
        return
      }
      #expect(result.status == 74, "\(result.error)")
      #expect(result.error.contains("nothing was appended"), "\(result.error)")
      #expect(fileBytes(log) == bytes, "the log changed")
      #expect(fileBytes(log + ".keys") == keys, "the key store changed")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
        .filter { $0.contains(".tmp") }
      #expect(leftovers == [])
    }
  }

  @Test func anErasureDropsTheContactsLinesFromQuarantinedKeyStoreTails() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      let keys = String(decoding: fileBytes(log + ".keys"), as: UTF8.self)
      let hers = try #require(keys.split(separator: "\n").first { $0.contains(#""contact":"13""#) })
      let others = try #require(
        keys.split(separator: "\n").first { $0.contains(#""contact":"9""#) })
      let folder = log + ".quarantine"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let cut = folder + "/1-keys-byte100.cut"
      try Data((hers + "\n" + others.prefix(40)).utf8).write(to: URL(fileURLWithPath: cut))
      let erased = try FireSession(log: log).run(["contacts", "erase", "13", "--actor", "dpo"])
      #expect(erased.status == 0, "\(erased.error)")
      let left = String(decoding: fileBytes(cut), as: UTF8.self)
      #expect(!left.contains(#""contact":"13""#))
      #expect(left.contains(String(others.prefix(40))))
    }
  }

  @Test func aCheckpointFolderTheEraserCannotWriteStillShowsTheContactErased() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.sampleCopy(in: directory)
      let session = FireSession(log: log)
      #expect(try session.run(["checkpoint", "--every", "20"]).status == 0)
      chmod(directory, 0o777)
      chmod(log, 0o666)
      chmod(log + ".keys", 0o666)
      chmod(log + ".checkpoints", 0o755)
      guard let result = try Self.runAsNobody(["contacts", "erase", "13", "--log", log]) else {
        print("skipped: not root, or no setpriv")
        return
      }
      #expect(result.status == 0, "\(result.error)")
      #expect(result.output.contains("could not remove 8 checkpoint files"), "\(result.output)")
      let shown = try Self.runAsNobody(
        ["state", "contacts", "--id", "13", "--at", "147", "--json", "--log", log])
      #expect(shown?.output.contains("(erased)") == true, "\(shown?.output ?? "")")
      Self.expectNoPersonalValues(try Self.readerOutputs(session, scratch: directory), "after")
      #expect(
        Self.filesHoldingPersonalData(
          in: directory, except: [directory + "/export.json", directory + "/report.html"]) == [])
    }
  }

  /// `kill -9` at random instants of an erase (`ERASURE_KILL_TRIALS`, 20 by default; the slow
  /// sweep runs 200), with a reader racing it. After each kill: either the erasure never began
  /// (the contact is whole and no `ContactErased` is in the log), or every reader shows the
  /// contact erased; no file beside the log holds her data, no leftover opens it as a key
  /// store, and the next erase finishes the job.
  @Test func killedErasuresNeverLeakAndTheNextWriterFinishesThem() throws {
    let trials =
      Int(ProcessInfo.processInfo.environment["ERASURE_KILL_TRIALS"] ?? "")
      ?? (ProcessInfo.processInfo.environment["EVENTS_SLOW_TESTS"] == nil ? 20 : 200)
    var generator = SystemRandomNumberGenerator()
    try withTemporaryDirectory { directory in
      let template = directory + "/template"
      try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
      let log = try Self.sampleCopy(in: template)
      let grown = try ReplayProcess.run(
        ["generate", "--append", "--events", "3000", "--seed", "fire", "--log", log, "--no-fsync"])
      #expect(grown.status == 0, "\(grown.error)")
      #expect(try FireSession(log: log).run(["checkpoint", "--every", "1000"]).status == 0)
      // How long a whole erase takes here (debug and release differ tenfold): the kills fall
      // anywhere in it, and a little past it.
      let timing = directory + "/timing"
      try FileManager.default.copyItem(atPath: template, toPath: timing)
      let began = Date()
      _ = try FireSession(log: timing + "/sample.jsonl").run(["contacts", "erase", "13"])
      let span = UInt32(min(5.0, Date().timeIntervalSince(began)) * 1_200_000)
      try FileManager.default.removeItem(atPath: timing)
      var outcomes: [String: Int] = [:]
      for trial in 0..<trials {
        let folder = directory + "/trial-\(trial)"
        try FileManager.default.copyItem(atPath: template, toPath: folder)
        let copy = folder + "/sample.jsonl"
        let reader = Process()
        reader.executableURL = ReplayProcess.executable
        reader.arguments = ["state", "contacts", "--log", copy]
        reader.standardOutput = FileHandle.nullDevice
        reader.standardError = FileHandle.nullDevice
        let eraser = Process()
        eraser.executableURL = ReplayProcess.executable
        eraser.arguments = ["contacts", "erase", "13", "--log", copy, "--actor", "dpo"]
        eraser.standardOutput = FileHandle.nullDevice
        eraser.standardError = FileHandle.nullDevice
        try reader.run()
        try eraser.run()
        usleep(UInt32.random(in: 0...max(1, span), using: &generator))
        kill(eraser.processIdentifier, SIGKILL)
        if Bool.random(using: &generator) { kill(reader.processIdentifier, SIGKILL) }
        eraser.waitUntilExit()
        reader.waitUntilExit()
        let session = FireSession(log: copy)
        let logText = String(decoding: fileBytes(copy), as: UTF8.self)
        let recorded =
          logText.contains(#""type":"ContactErased","stream":"contact-13""#)
          || logText.contains(#""stream":"contact-13","type":"ContactErased""#)
        let shown = try session.run(["state", "contacts", "--id", "13", "--json"]).output
        let erasedNow = shown.contains("(erased)")
        outcomes[erasedNow ? "erased" : "not yet", default: 0] += 1
        if recorded || erasedNow {
          Self.expectNoPersonalValues(
            try Self.readerOutputs(session, scratch: folder), "trial \(trial) after the kill")
        }
        #expect(
          Self.filesHoldingPersonalData(
            in: folder, except: [folder + "/export.json", folder + "/report.html"]) == [],
          "trial \(trial)")
        let finished = try session.run(["contacts", "erase", "13", "--actor", "dpo"])
        #expect(finished.status == 0, "trial \(trial): \(finished.error)")
        Self.expectNoPersonalValues(
          try Self.readerOutputs(session, scratch: folder), "trial \(trial) after the next erase")
        // No file left in the folder opens her data as the key store.
        for name in try FileManager.default.contentsOfDirectory(atPath: folder)
        where name.contains(".keys") {
          let trialLog = folder + "/probe.jsonl"
          try? FileManager.default.removeItem(atPath: trialLog)
          try? FileManager.default.removeItem(atPath: trialLog + ".keys")
          try FileManager.default.copyItem(atPath: copy, toPath: trialLog)
          try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: trialLog + ".keys")
          let history = try FireSession(log: trialLog).run(["history", "contact-13"])
          #expect(!history.output.contains("Miss Piggy"), "trial \(trial): \(name) opens her data")
        }
        try FileManager.default.removeItem(atPath: folder)
      }
      print("killed erasures: \(outcomes)")
    }
  }
}

extension ErasureUnderFireTests {
  /// Readers racing an erase on a big log (300 000 generated events with `EVENTS_SLOW_TESTS`,
  /// 20 000 otherwise): `state` saving automatic checkpoints, `log -f`, `state -f` and the
  /// library's `ReadModelUpdates` loop. Afterwards no file beside the log holds her data, every
  /// point of the log shows her erased, and the followers' last word shows her erased.
  @Test func readersRacingAnEraseOnABigLogLeaveNothingInClear() async throws {
    let slow = ProcessInfo.processInfo.environment["EVENTS_SLOW_TESTS"] != nil
    let count = slow ? 300_000 : 20_000
    let directory = NSTemporaryDirectory() + "replay-fire-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let log = try RepositoryFiles.copySampleLog(to: directory)
    let grown = try ReplayProcess.run(
      [
        "generate", "--append", "--events", "\(count)", "--seed", "race", "--log", log,
        "--no-fsync",
      ])
    #expect(grown.status == 0, "\(grown.error)")
    let session = FireSession(log: log)
    #expect(try session.run(["checkpoint", "--every", "\(count / 6)"]).status == 0)
    // The automatic checkpoints go; the racing `state` saves them again while the erase runs.
    #expect(try session.run(["checkpoint", "--clear"]).status == 0)
    #expect(try session.run(["checkpoint", "--every", "\(count / 6)"]).status == 0)
    for entry in try FileManager.default.contentsOfDirectory(atPath: log + ".checkpoints")
    where entry.hasSuffix(".ckpt") {
      try FileManager.default.removeItem(atPath: log + ".checkpoints/" + entry)
    }
    let scratch = directory + "/outputs"
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

    func start(_ arguments: [String], output name: String) throws -> Process {
      let process = Process()
      process.executableURL = ReplayProcess.executable
      process.arguments = arguments + ["--log", log]
      _ = FileManager.default.createFile(atPath: scratch + "/" + name, contents: nil)
      process.standardOutput = try FileHandle(
        forWritingTo: URL(fileURLWithPath: scratch + "/" + name))
      process.standardError = FileHandle.nullDevice
      try process.run()
      return process
    }
    let follower = try start(["log", "-f", "--json", "--stream", "contact-13"], output: "log-f")
    let stateFollower = try start(
      ["state", "contacts", "--id", "13", "--json", "--follow"], output: "state-f")
    let reader = try start(["state", "contacts"], output: "state")
    // The library's loop, in this process.
    let library = Task { () -> String in
      var last = ""
      for try await update in ReadModelUpdates(path: log, models: [ContactList.name]) {
        last = update.models.contacts.contact(try ContactID("13"))?.name ?? "none"
        if last == ContactRecord.erasedName { break }
      }
      return last
    }
    usleep(300_000)
    let erased = try session.run(["contacts", "erase", "13", "--actor", "dpo"])
    #expect(erased.status == 0, "\(erased.error)")
    reader.waitUntilExit()
    let deadline = Date().addingTimeInterval(slow ? 60 : 20)
    var lastLine = ""
    while Date() < deadline {
      let text = String(decoding: fileBytes(scratch + "/state-f"), as: UTF8.self)
      lastLine = text.split(separator: "\n").last.map(String.init) ?? ""
      if lastLine.contains(ContactRecord.erasedName) { break }
      usleep(100_000)
    }
    #expect(
      lastLine.contains(ContactRecord.erasedName), "state -f last showed: \(lastLine.prefix(200))")
    let libraryLast = try await library.value
    #expect(libraryLast == ContactRecord.erasedName)
    for process in [follower, stateFollower] where process.isRunning {
      process.terminate()
      process.waitUntilExit()
    }
    let followed = String(decoding: fileBytes(scratch + "/log-f"), as: UTF8.self)
    #expect(followed.contains("ContactErased"))
    Self.expectNoPersonalValues([("log -f", followed)], "racing")
    #expect(
      Self.filesHoldingPersonalData(
        in: directory, except: [scratch + "/state-f", scratch + "/state"]) == [])
    let at = try session.run([
      "state", "contacts", "--id", "13", "--at", "\(count + 147)", "--json",
    ])
    #expect(at.output.contains(ContactRecord.erasedName), "\(at.error)")
    Self.expectNoPersonalValues(try Self.readerOutputs(session, scratch: directory), "racing")
  }
}

/// `Session` with a clock after the sample log's last event (2026-11-08), which a write after it
/// needs: event times never go backwards.
struct FireSession {
  let log: String

  @discardableResult
  func run(_ arguments: [String]) throws -> ReplayProcess.Result {
    try ReplayProcess.run(
      arguments + ["--log", log],
      environment: ["REPLAY_CLOCK": "2026-11-20T09:00:00Z", "REPLAY_ID_SEED": "tests"])
  }
}
