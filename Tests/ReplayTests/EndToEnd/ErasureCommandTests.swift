import Foundation
import ReplayTestSupport
import Testing

/// `replay contacts erase`: the person's values are gone from every output, at every point,
/// and the log's bytes (and so every digest taken before) are unchanged.
@Suite struct ErasureCommandTests {
  /// Miss Piggy's personal values in the seed data (contact 13).
  static let personalValues = [
    "Miss Piggy", "Miss.Piggy", "miss-piggy", "muppetsbaby.com", "1987-05-11", "602-225-9543",
    "602-225-9188", "3530 E Washington", "85034",
  ]

  @Test func afterAnEraseNoOutputOfAnyCommandHoldsThePersonsValues() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let session = Session(log: log)
      let seed = RepositoryFiles.seedDataPath("contacts-v3.json")
      try session.run(["import", "contacts", seed])
      try session.run(["contacts", "favorite", "13"])
      // Sealed in the log from the first write: no personal value there, ever.
      let logText = String(decoding: fileBytes(log), as: UTF8.self)
      for value in Self.personalValues { #expect(!logText.contains(value), "\(value) in the log") }
      #expect(logText.contains(#""schema":2"#))
      // Readable before the erasure.
      let before = try session.run(["state", "contacts", "--json"])
      #expect(before.output.contains("Miss Piggy"))
      let digest = try session.run(["digest"]).output.trimmingCharacters(
        in: .whitespacesAndNewlines)
      let bytesBefore = fileBytes(log)

      let erased = try session.run(
        ["contacts", "erase", "13", "--actor", "dpo", "--reason", "erasure request"])
      #expect(erased.status == 0, "\(erased.error)")
      #expect(erased.output.contains("appended ContactErased to contact-13"))
      #expect(fileBytes(log).starts(with: bytesBefore), "the erase rewrote the log")
      #expect(try session.run(["verify", "--digest", digest]).status == 0)

      let again = try session.run(["contacts", "erase", "13", "--actor", "dpo"])
      #expect(again.status == 0)
      #expect(again.output == "nothing appended: contact '13' is already erased\n")
      try session.rejects(
        ["contacts", "erase", "404"], status: 65,
        message:
          "no contact '404' exists (stream 'contact-404' has no events); add or import it first")

      var outputs: [(String, String)] = []
      func collect(_ arguments: [String]) throws {
        let result = try session.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        outputs.append((arguments.joined(separator: " "), result.output + result.error))
      }
      for model in ["contacts", "zipcodes", "observations", "animals", "locations"] {
        try collect(["state", model])
        try collect(["state", model, "--json"])
      }
      // Before the erasure too: the key is gone at every point.
      try collect(["state", "contacts", "--at", "18"])
      try collect(["state", "contacts", "--json", "--at", "19"])
      try collect(["history", "contact-13"])
      try collect(["history", "contact-13", "--json"])
      try collect(["diff", "contacts", "--from", "0", "--to", "20"])
      try collect(["log"])
      try collect(["log", "--json"])
      try collect(["import", "contacts", seed, "--dry-run"])
      let export = directory + "/contacts-export.json"
      try collect(["export", "contacts", "--output", export])
      outputs.append(("the export file", String(decoding: fileBytes(export), as: UTF8.self)))
      let report = directory + "/report.html"
      try collect(["report", "--output", report])
      outputs.append(("the report", String(decoding: fileBytes(report), as: UTF8.self)))
      for (command, output) in outputs {
        for value in Self.personalValues {
          #expect(!output.contains(value), "'\(command)' shows \(value)")
        }
      }
      let state = try session.run(["state", "contacts", "--json"]).output
      #expect(state.contains(#""name":"(erased)""#))
      #expect(state.contains("Muppets, Baby"))
      let history = try session.run(["history", "contact-13"]).output
      #expect(history.contains("personal data erased: its key destroyed"), "\(history)")
      // Re-importing the source does not bring the person back.
      let reimport = try session.run(["import", "contacts", seed])
      #expect(reimport.status == 0, "\(reimport.error)")
      let after = try session.run(["state", "contacts", "--json"]).output
      for value in Self.personalValues { #expect(!after.contains(value), "re-import: \(value)") }
      #expect(
        reimport.output.contains("contact record 1 (stream 'contact-13'): contact '13' was erased"))
      // Asked for, the person comes back, sealed under a new key; the old events stay erased.
      let keyBefore = try String(contentsOfFile: log + ".keys", encoding: .utf8)
      let restored = try session.run(["import", "contacts", seed, "--include-erased"])
      #expect(restored.status == 0, "\(restored.error)")
      #expect(restored.output.contains("1 ContactAdded"))
      #expect(try session.run(["state", "contacts", "--json"]).output.contains("Miss Piggy"))
      #expect(
        !(try session.run(["state", "contacts", "--json", "--at", "18"]).output
          .contains("Miss Piggy")))
      let keyAfter = try String(contentsOfFile: log + ".keys", encoding: .utf8)
      #expect(keyAfter.count > keyBefore.count)
      let zoo = try session.run(["import", "zoo", seed, "--include-erased"])
      #expect(zoo.status == 64)
      #expect(zoo.error.hasPrefix("Error: '--include-erased' is for contacts sources only\n"))
    }
  }

  @Test func aContactWhoseDataIsInClearIsRefusedAndNothingIsWritten() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let session = Session(log: log)
      // A schema 1 line, as logs written before sealing hold them.
      let line =
        #"{"stream":"contact-7","type":"ContactAdded","data":{"id":"7","name":"Kermit","isFavorite":false}}"#
      let input = directory + "/in.jsonl"
      try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: input))
      try session.run(["append", "--file", input])
      // `append` seals it too: a log written by this engine never holds it in clear.
      #expect(!String(decoding: fileBytes(log), as: UTF8.self).contains("Kermit"))
      #expect(try session.run(["contacts", "erase", "7"]).status == 0)
      #expect(!(try session.run(["state", "contacts"]).output.contains("Kermit")))
    }
  }

  @Test func migrateWritesASealedCopyThatCanBeErasedAndLeavesTheOldLogAlone() throws {
    try withTemporaryDirectory { directory in
      let old = directory + "/old.jsonl"
      let new = directory + "/new.jsonl"
      // The sample log as the engine wrote it before sealing: its contacts in clear (schema 1).
      let plaintext = RepositoryFiles.root.appendingPathComponent(
        "Tests/Fixtures/sample-before-sealing.jsonl"
      ).path
      try FileManager.default.copyItem(atPath: plaintext, toPath: old)
      let before = fileBytes(old)
      let session = Session(log: old)
      // Erasing in a plaintext log is refused: no key's destruction can erase it.
      let refused = try session.run(["contacts", "erase", "13"])
      #expect(refused.status == 65)
      #expect(refused.error.contains("replay migrate --encrypt-personal-data"))
      #expect(fileBytes(old) == before)

      let migrated = try session.run(["migrate", "--encrypt-personal-data", "--output", new])
      #expect(migrated.status == 0, "\(migrated.error)")
      #expect(migrated.output.contains("18 contact payloads sealed"))
      #expect(migrated.output.contains(": identical\n"))
      #expect(migrated.output.contains("still holds the personal data in clear"))
      #expect(fileBytes(old) == before)
      let newText = String(decoding: fileBytes(new), as: UTF8.self)
      for value in Self.personalValues { #expect(!newText.contains(value), "\(value)") }
      let oldState = try session.run(["state", "contacts", "--json"]).output
      let newState = try Session(log: new).run(["state", "contacts", "--json"]).output
      #expect(oldState == newState)
      // The sample's story ends on 2026-11-08: the erasure comes after it.
      let erased = try ReplayProcess.run(
        ["contacts", "erase", "13", "--clock", "2026-11-09T09:00:00Z", "--log", new])
      #expect(erased.status == 0, "\(erased.error)")

      let again = try session.run(["migrate", "--encrypt-personal-data", "--output", new])
      #expect(again.status == 73)
      let usage = try session.run(["migrate", "--output", directory + "/other.jsonl"])
      #expect(usage.status == 64)
    }
  }
}
