import Foundation
import Testing

/// `kill -9` in the middle of appending: every append reported done is in the log, an
/// interrupted atomic write leaves nothing, and the next writer recovers.
@Suite struct DurabilityTests {
  @Test func appendsReportedDoneSurviveKillDashNine() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let done = directory + "/done.txt"
      // A shell appends one event at a time and records each number only after `replay`
      // reported success.
      let script = """
        for i in $(seq 1 100000); do
          "\(ReplayProcess.executable.path)" append --log "\(log)" --stream location-p$((i % 7)) \
            --type LocationMoved \
            --data "{\\"id\\":\\"p$((i % 7))\\",\\"coordinate\\":{\\"latitude\\":$((i % 90)),\\"longitude\\":$((i / 90))}}" \
            > /dev/null || exit 1
          echo $i >> "\(done)"
        done
        """
      // Let it get going, then kill the shell and whatever `replay` it is running.
      try ReplayProcess.killDashNine(script: script, log: log, once: done, holds: 20)
      let reported = try String(contentsOfFile: done, encoding: .utf8).split(separator: "\n")
        .compactMap { Int($0) }
      #expect(reported.count >= 20)
      // The next writer recovers whatever the killed append left, then everything checks out.
      let recovery = try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
        #"{"id":"1"}"#,
      ])
      #expect(recovery.status == 0)
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0, "\(verify.output)\(verify.error)")
      let stored = try ReplayProcess.run(["log", "--log", log, "--json"]).output
      for number in reported {
        #expect(
          stored.contains(
            #""coordinate":{"latitude":\#(number % 90),"longitude":\#(number / 90)}"#),
          "event \(number) was reported done but is missing")
      }
    }
  }

  @Test func anImportKilledHalfwayLeavesNothingOfIt() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-0", "--type", "ContactFavorited", "--data",
        #"{"id":"0"}"#,
      ])
      let before = fileBytes(log)
      let input = (1...60_000).map {
        #"{"stream":"location-p\#($0 % 100)","type":"LocationMoved","data":{"id":"p\#($0 % 100)","coordinate":{"latitude":\#($0 % 90),"longitude":0}}}"#
      }
      .joined(separator: "\n")
      let file = directory + "/big.jsonl"
      try input.write(toFile: file, atomically: true, encoding: .utf8)
      let importer = Process()
      importer.executableURL = ReplayProcess.executable
      importer.arguments = ["append", "--log", log, "--file", file, "--chunk-size", "10"]
      importer.standardOutput = FileHandle.nullDevice
      importer.standardError = FileHandle.nullDevice
      try importer.run()
      // Wait until it has written part of the import, then kill it.
      var waited = 0
      while fileBytes(log).count < before.count + 100_000, waited < 6000 {
        Thread.sleep(forTimeInterval: 0.01)
        waited += 1
      }
      kill(importer.processIdentifier, SIGKILL)
      importer.waitUntilExit()
      #expect(importer.terminationReason == .uncaughtSignal)
      #expect(fileBytes(log).count > before.count, "the import should have been caught mid-way")
      // Readers see none of the unfinished import.
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0)
      #expect(verify.output.hasPrefix("ok: 1 events, 1 streams, last seq 1, "))
      #expect(verify.error.contains("an unfinished write of events 2...60001"))
      // The next writer cuts it off and says so.
      let next = try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-0", "--type", "ContactUnfavorited", "--data",
        #"{"id":"0"}"#,
      ])
      #expect(next.status == 0)
      #expect(next.output == "2\n")
      #expect(next.error.hasPrefix("replay: recovered '\(log)': cut "))
      #expect(Array(fileBytes(log).prefix(before.count)) == before)
    }
  }
}

@Suite struct LockTests {
  @Test func aSecondWriterWaitsForTheLockThenGivesUpWithExit75() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
          #"{"id":"1"}"#,
        ])
      let before = fileBytes(log)
      // Another process holds the writer's lock: flock(1) keeps it while it sleeps.
      let holder = Process()
      holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
      holder.arguments = ["--exclusive", log, "sleep", "3"]
      try holder.run()
      defer {
        holder.terminate()
        holder.waitUntilExit()
      }
      Thread.sleep(forTimeInterval: 0.3)
      let started = Date()
      let blocked = try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactUnfavorited", "--data",
        #"{"id":"1"}"#, "--lock-timeout", "0.5",
      ])
      #expect(blocked.status == 75)
      #expect(
        blocked.error
          == "Error: another writer holds the lock on '\(log)'; gave up after 0.5 s (retry, or raise --lock-timeout)\n"
      )
      #expect(Date().timeIntervalSince(started) >= 0.5)
      #expect(fileBytes(log) == before)
      // Readers never need the lock.
      let reader = try ReplayProcess.run(["verify", "--log", log])
      #expect(reader.status == 0)
    }
  }
}
