import Foundation
import Testing

/// `replay repair --from <copy>`: damaged lines put back from a backup or a replica, proven by
/// the tree, instead of cutting everything after the damage; a copy that is not one is refused
/// with nothing changed.
@Suite struct RepairFromCopyTests {
  typealias Signed = VerifiableLogTests.Signed

  /// The sample log signed (`VerifiableLogTests.signed`), a copy of it beside as `copy.jsonl`,
  /// and the log's bytes before any damage.
  static func signedWithCopy(in directory: String) throws -> (
    Signed, copy: String, original: [UInt8]
  ) {
    let signed = try VerifiableLogTests.signed(in: directory)
    let copy = directory + "/copy.jsonl"
    let original = fileBytes(signed.log)
    try Data(original).write(to: URL(fileURLWithPath: copy))
    return (signed, copy, original)
  }

  /// Whether two files' bytes are equal (a Bool, so that a failure does not print them).
  func same(_ a: [UInt8], _ b: [UInt8]) -> Bool { a == b }

  /// `bytes` with one byte flipped inside line `line` (1-based).
  static func flipping(_ bytes: [UInt8], line: Int) -> [UInt8] {
    var bytes = bytes
    let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    bytes[starts[line - 1] + 60] ^= 0x01
    return bytes
  }

  @Test func aFlippedByteIsPutBackFromACopyAndTheLogIsWholeAgain() throws {
    try withTemporaryDirectory { directory in
      let (signed, copy, original) = try Self.signedWithCopy(in: directory)
      let damaged = Self.flipping(original, line: 50)
      try Data(damaged).write(to: URL(fileURLWithPath: signed.log))

      let shown = try ReplayProcess.run(["repair", "--log", signed.log, "--from", copy])
      #expect(shown.status == 74, "\(shown.error)")
      #expect(same(fileBytes(signed.log), damaged))
      #expect(shown.output.contains("would restore seq 18...147 from '\(copy)'"))
      #expect(shown.output.contains("proof: the repaired log's first 147 events have the copy's"))

      let applied = try ReplayProcess.run([
        "repair", "--log", signed.log, "--from", copy, "--note", signed.note, "--key",
        signed.verifier, "--apply", "--json",
      ])
      #expect(applied.status == 0, "\(applied.error)")
      #expect(applied.output.contains(#""applied":true"#))
      #expect(applied.output.contains(#""restored":[18,147]"#))
      #expect(applied.output.contains(#""noteSize":147"#))
      // Byte for byte the log it was, and every byte replaced is in quarantine.
      #expect(same(fileBytes(signed.log), original))
      let quarantined = try #require(QuarantineFolder.files(of: signed.log).first)
      #expect(Array(original[..<8298]) + fileBytes(quarantined) == damaged ? true : false)
      let verify = try ReplayProcess.run([
        "verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier,
      ])
      #expect(verify.status == 0, "\(verify.output)\(verify.error)")
    }
  }

  /// A backup taken at seq 100: the damage at seq 50 comes back from it, and the log's own
  /// events after the backup's end are kept.
  @Test func anOlderBackupRestoresTheDamageAndTheLogsOwnLaterEventsStay() throws {
    try withTemporaryDirectory { directory in
      let (signed, copy, original) = try Self.signedWithCopy(in: directory)
      let lines = VerifiableLogTests.lines(signed.log)
      // The sample's writes end at seq 88 and 147; a backup ends at a write's end.
      try VerifiableLogTests.write(Array(lines[..<88]), to: copy)
      try Data(Self.flipping(original, line: 50)).write(to: URL(fileURLWithPath: signed.log))
      let applied = try ReplayProcess.run([
        "repair", "--log", signed.log, "--from", copy, "--apply",
      ])
      #expect(applied.status == 0, "\(applied.error)")
      #expect(applied.output.contains("restored seq 18...88 from '\(copy)'"))
      #expect(applied.output.contains("kept this log's own seq 89...147 after it"))
      #expect(same(fileBytes(signed.log), original))
    }
  }

  /// Damage after the copy's end is not restored: the log keeps what the copy proves and cuts
  /// the rest into quarantine, and says so.
  @Test func damageAfterTheCopysEndIsCutAndNamed() throws {
    try withTemporaryDirectory { directory in
      let (signed, copy, original) = try Self.signedWithCopy(in: directory)
      let lines = VerifiableLogTests.lines(signed.log)
      try VerifiableLogTests.write(Array(lines[..<88]), to: copy)
      let damaged = Self.flipping(Self.flipping(original, line: 50), line: 120)
      try Data(damaged).write(to: URL(fileURLWithPath: signed.log))
      let applied = try ReplayProcess.run([
        "repair", "--log", signed.log, "--from", copy, "--apply",
      ])
      #expect(applied.status == 0, "\(applied.error)")
      // Seq 89...119 (two whole writes) follow the copy's end; seq 120 is damaged.
      #expect(applied.output.contains("kept this log's own seq 89...119 after it"))
      #expect(applied.output.contains("not restored: seq 120...147 of this log"))
      #expect(VerifiableLogTests.lines(signed.log) == Array(lines[..<119]) ? true : false)
      let verify = try ReplayProcess.run(["verify", "--log", signed.log])
      #expect(verify.status == 0, "\(verify.output)")
    }
  }

  @Test func aCopyThatIsNotACopyIsRefusedWithNothingChanged() throws {
    try withTemporaryDirectory { directory in
      let (signed, copy, original) = try Self.signedWithCopy(in: directory)
      let damaged = Self.flipping(original, line: 50)
      try Data(damaged).write(to: URL(fileURLWithPath: signed.log))
      func refused(_ arguments: [String], _ phrase: String, status: Int32 = 65) throws {
        let copyBefore = fileBytes(copy)
        let run = try ReplayProcess.run(["repair", "--log", signed.log] + arguments)
        #expect(run.status == status, "\(arguments): \(run.output)")
        #expect(run.error.contains(phrase), "\(arguments): \(run.error)")
        #expect(same(fileBytes(signed.log), damaged))
        #expect(same(fileBytes(copy), copyBefore))
        #expect((try? QuarantineFolder.files(of: signed.log).isEmpty) ?? true)
        #expect(!FileManager.default.fileExists(atPath: copy + ".tree"))
      }
      let lines = VerifiableLogTests.lines(copy)
      // A fork: the copy went on from seq 88 with another event, so seq 89, whole in the log,
      // differs in the copy.
      try VerifiableLogTests.write(Array(lines[..<88]), to: copy)
      let appended = try ReplayProcess.run([
        "append", "--log", copy, "--stream", "contact-1", "--type", "ContactFavorited",
        "--data", #"{"id":"1"}"#,
      ])
      #expect(appended.status == 0, "\(appended.error)")
      try refused(["--from", copy, "--apply"], "differs from the copy's")
      // Another log altogether.
      let other = directory + "/other.jsonl"
      let generated = try ReplayProcess.run([
        "generate", "--events", "300", "--seed", "3", "--log", other, "--no-fsync",
      ])
      #expect(generated.status == 0, "\(generated.error)")
      try refused(["--from", other, "--apply"], "is not a copy of this log")
      // A backup that ends before the damage.
      try VerifiableLogTests.write(Array(lines[..<11]), to: copy)
      try refused(["--from", copy, "--apply"], "where this log's damage starts")
      // A note the repaired log cannot match: damage at seq 120 too, and a backup to seq 88,
      // leave 88 events, fewer than the 147 the note signs.
      try VerifiableLogTests.write(Array(lines[..<88]), to: copy)
      let twice = Self.flipping(damaged, line: 120)
      try Data(twice).write(to: URL(fileURLWithPath: signed.log))
      let noteRun = try ReplayProcess.run([
        "repair", "--log", signed.log, "--from", copy, "--note", signed.note, "--key",
        signed.verifier, "--apply",
      ])
      #expect(noteRun.status == 65)
      #expect(noteRun.error.contains("would hold 119 events, fewer than the 147 the note signs"))
      #expect(same(fileBytes(signed.log), twice))
      try Data(damaged).write(to: URL(fileURLWithPath: signed.log))
      // The log's own files are not a copy.
      try refused(["--from", signed.log, "--apply"], "not another copy of it")
      try refused(["--from", signed.log + ".keys", "--apply"], "not another copy of it")
      // --note alone is a usage error.
      try refused(["--note", signed.note, "--key", signed.verifier], "need '--from", status: 64)
    }
  }
}
