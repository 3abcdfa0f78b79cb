import Engine
import Events
import Foundation
import Testing

/// The verifiable log through the built binary: sign a head, prove, check offline, and every
/// tampering the issue names failing with a message naming what does not match.
@Suite struct VerifiableLogTests {
  /// A copy of the sample log with a key, a signed head of all 147 events, and the key's
  /// verifier key.
  struct Signed {
    var directory: String
    var log: String
    var key: String
    var verifier: String
    var note: String
  }

  static func signed(in directory: String) throws -> Signed {
    let log = try RepositoryFiles.copySampleLog(to: directory)
    let key = directory + "/audit.key"
    let keygen = try ReplayProcess.run(["keygen", "--name", "audit.example", "--output", key])
    #expect(keygen.status == 0, "\(keygen.error)")
    let note = directory + "/head.note"
    let head = try ReplayProcess.run(["head", "--log", log, "--sign", key])
    #expect(head.status == 0, "\(head.error)")
    try head.output.write(toFile: note, atomically: false, encoding: .utf8)
    return Signed(
      directory: directory, log: log, key: key,
      verifier: keygen.output.trimmingCharacters(in: .newlines), note: note)
  }

  static func lines(_ path: String) -> [String] {
    String(decoding: fileBytes(path), as: UTF8.self).split(separator: "\n").map(String.init)
  }

  static func write(_ lines: [String], to path: String) throws {
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: false, encoding: .utf8)
  }

  @Test func aSignedHeadVerifiesAndProofsCheckOffline() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      #expect(
        fileBytes(signed.note).starts(with: Array("replay/sample.jsonl\n147\n".utf8)))
      let verify = try ReplayProcess.run(
        ["verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier])
      #expect(verify.status == 0, "\(verify.error)")
      #expect(verify.output.hasPrefix("ok: the log's first 147 events have the root"))

      let proof = try ReplayProcess.run(["prove", "5", "--log", signed.log, "--json"])
      #expect(proof.status == 0)
      #expect(proof.output.hasPrefix(#"{"seq":5,"leafIndex":4,"treeSize":147,"leafHash":""#))
      try proof.output.write(toFile: directory + "/p5.json", atomically: false, encoding: .utf8)
      try Self.write([Self.lines(signed.log)[4]], to: directory + "/line5")
      let check = try ReplayProcess.run([
        "check", "--note", signed.note, "--key", signed.verifier, "--line", directory + "/line5",
        "--proof", directory + "/p5.json",
      ])
      #expect(check.status == 0, "\(check.error)")

      // Another line with event 5's proof: it is not the line proven.
      try Self.write([Self.lines(signed.log)[5]], to: directory + "/line6")
      let wrongLine = try ReplayProcess.run([
        "check", "--note", signed.note, "--key", signed.verifier, "--line", directory + "/line6",
        "--proof", directory + "/p5.json",
      ])
      #expect(wrongLine.status == 74)
      #expect(wrongLine.error.contains("the line is not the one proven"))
    }
  }

  @Test func aForgedNoteFailsNamingTheSignature() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      let forged = String(decoding: fileBytes(signed.note), as: UTF8.self)
        .replacingOccurrences(of: "\n147\n", with: "\n146\n")
      try forged.write(toFile: signed.note, atomically: false, encoding: .utf8)
      let result = try ReplayProcess.run(
        ["verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier])
      #expect(result.status == 74)
      #expect(result.error.contains("the signature by 'audit.example'"))
      #expect(result.error.contains("does not match the note's text"))
    }
  }

  @Test func aFlippedByteFailsNamingTheLine() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      var lines = Self.lines(signed.log)
      lines[41] = lines[41].replacingOccurrences(of: "\"seq\":42,", with: "\"seq\":42, ")
      try Self.write(lines, to: signed.log)
      let result = try ReplayProcess.run(
        ["verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier])
      #expect(result.status == 74)
      #expect(result.error.contains("sample.jsonl:42: checksum mismatch"), "\(result.error)")
    }
  }

  /// `verify --note` reads the tree from `<log>.tree`, bound to the log by its identity, first
  /// bytes and last covered tile; a line changed in place in an earlier tile, its checksum
  /// recomputed, is beyond that binding, and `--rehash` (every line hashed again) finds it
  /// wherever it is.
  @Test func rehashFindsALineChangedInPlaceThatTheCacheCovers() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      #expect(FileManager.default.fileExists(atPath: signed.log + ".tree"))
      var bytes = fileBytes(signed.log)
      // Line 60's first letter of its reason, case toggled, and its crc fixed: same length.
      let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
      let (start, end) = (starts[59], starts[60] - 1)
      let marker = Array(#""reason":""#.utf8)
      let at =
        try #require(
          (start..<end).first { Array(bytes[$0..<$0 + marker.count]) == marker }) + marker.count
      bytes[at] ^= 0x20
      let crc = String(CRC32C.checksum(of: bytes[start..<end - 18]), radix: 16)
      let digits = Array((String(repeating: "0", count: 8 - crc.count) + crc).utf8)
      bytes.replaceSubrange(end - 10..<end - 2, with: digits)
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: signed.log))
      try handle.write(contentsOf: bytes)
      try handle.close()
      let arguments = [
        "verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier,
      ]
      let rehashed = try ReplayProcess.run(arguments + ["--rehash"])
      #expect(rehashed.status == 74)
      #expect(rehashed.error.contains("the log's first 147 events have root"), "\(rehashed.error)")
      let misplaced = try ReplayProcess.run(["verify", "--log", signed.log, "--rehash"])
      #expect(misplaced.status == 64, "\(misplaced.error)")
    }
  }

  @Test func logLeafHashesWrapsEachStoredLineWithItsLeafHash() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      let result = try ReplayProcess.run(
        ["log", "--log", signed.log, "--json", "--leaf-hashes", "--from", "40", "--to", "42"])
      #expect(result.status == 0, "\(result.error)")
      let stored = Self.lines(signed.log)[39...41]
      let expected = stored.map { line in
        let hash = SHA256.hex(MerkleTree.leafHash(Array(line.utf8)))
        return #"{"leafHash":"\#(hash)","event":\#(line)}"#
      }
      #expect(result.output == expected.joined(separator: "\n") + "\n")
      let prove = try ReplayProcess.run(["prove", "41", "--log", signed.log, "--json"])
      #expect(prove.output.contains(SHA256.hex(MerkleTree.leafHash(Array(stored[40].utf8)))))
      let table = try ReplayProcess.run(["log", "--log", signed.log, "--leaf-hashes"])
      #expect(table.status == 64, "\(table.error)")
    }
  }

  @Test(arguments: ["removed", "reordered"])
  func aRemovedOrReorderedLineFailsNamingTheLine(change: String) throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      var lines = Self.lines(signed.log)
      if change == "removed" {
        lines.remove(at: 9)
      } else {
        lines.swapAt(9, 10)
      }
      try Self.write(lines, to: signed.log)
      let result = try ReplayProcess.run(
        ["verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier])
      #expect(result.status == 74)
      #expect(
        result.error.contains("sample.jsonl:10: seq is 11 where 10 was expected"), "\(result.error)"
      )
    }
  }

  @Test func aTruncationAtALineBoundaryFailsNamingTheSizes() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      // Lines 89...137 are one atomic write: cut inside it, the log ends after seq 88.
      try Self.write(Array(Self.lines(signed.log).prefix(100)), to: signed.log)
      let result = try ReplayProcess.run(
        ["verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier])
      #expect(result.status == 74)
      #expect(
        result.error.contains("the log has 88 events, fewer than the 147 the note signs"),
        "\(result.error)")
    }
  }

  /// Another log of 147 valid lines passes every line check; only the tree tells it apart.
  @Test func anotherLogOfTheSameSizeFailsOnTheRoot() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      let other = directory + "/other"
      try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
      let generated = other + "/g.jsonl"
      let generate = try ReplayProcess.run(
        ["generate", "--log", generated, "--events", "147", "--seed", "other", "--no-fsync"])
      #expect(generate.status == 0, "\(generate.error)")
      let result = try ReplayProcess.run(
        ["verify", "--log", generated, "--note", signed.note, "--key", signed.verifier])
      #expect(result.status == 74)
      #expect(result.error.contains("the log's first 147 events have root"), "\(result.error)")
    }
  }

  /// Erasure destroys a key, not a line: the head signed and the proofs made before all hold.
  @Test func erasureDisturbsNoProof() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      let proof = try ReplayProcess.run(["prove", "120", "--log", signed.log, "--json"])
      try proof.output.write(toFile: directory + "/p.json", atomically: false, encoding: .utf8)
      try Self.write([Self.lines(signed.log)[119]], to: directory + "/line")
      let erase = try ReplayProcess.run(
        ["contacts", "erase", "13", "--log", signed.log, "--actor", "dpo", "--reason", "request"])
      #expect(erase.status == 0, "\(erase.error)")
      let verify = try ReplayProcess.run(
        ["verify", "--log", signed.log, "--note", signed.note, "--key", signed.verifier])
      #expect(verify.status == 0, "\(verify.error)")
      let check = try ReplayProcess.run([
        "check", "--note", signed.note, "--key", signed.verifier, "--line", directory + "/line",
        "--proof", directory + "/p.json",
      ])
      #expect(check.status == 0, "\(check.error)")
      let later = try ReplayProcess.run([
        "prove", "120", "--head", "147", "--log", signed.log, "--json",
      ])
      #expect(later.output == proof.output)
      // The new head extends the old one.
      let newNote = directory + "/new.note"
      let head = try ReplayProcess.run(["head", "--log", signed.log, "--sign", signed.key])
      try head.output.write(toFile: newNote, atomically: false, encoding: .utf8)
      let consistency = try ReplayProcess.run(
        ["prove", "--consistency", "147", "--log", signed.log, "--json"])
      try consistency.output.write(
        toFile: directory + "/c.json", atomically: false, encoding: .utf8)
      let extends = try ReplayProcess.run([
        "check", "--note", newNote, "--key", signed.verifier, "--consistency",
        directory + "/c.json", "--old-note", signed.note,
      ])
      #expect(extends.status == 0, "\(extends.error)")
    }
  }

  /// Issue 36 item 8: the report shows whether a given note verifies.
  @Test func theReportSaysWhetherASignedNoteVerifies() throws {
    try withTemporaryDirectory { directory in
      let signed = try Self.signed(in: directory)
      let page = directory + "/report.html"
      let report = ["report", "--log", signed.log, "--output", page]
      let ok = try ReplayProcess.run(
        report + ["--note", signed.note, "--key", signed.verifier, "--json"])
      #expect(ok.status == 0, "\(ok.error)")
      #expect(ok.output.contains(#""noteVerifies":true"#))
      let verified = String(decoding: fileBytes(page), as: UTF8.self)
      #expect(verified.contains("Signed note"))
      #expect(verified.contains("147 events have this root"))
      #expect(!verified.contains("does not verify"))

      // Signed by another key: refused before anything is written.
      try FileManager.default.removeItem(atPath: page)
      let other = directory + "/other.key"
      let otherKey = try ReplayProcess.run(["keygen", "--name", "other.example", "--output", other])
      let forged = try ReplayProcess.run(
        report + [
          "--note", signed.note, "--key", otherKey.output.trimmingCharacters(in: .newlines),
        ])
      #expect(forged.status == 74, "\(forged.error)")
      #expect(!FileManager.default.fileExists(atPath: page))
      let alone = try ReplayProcess.run(report + ["--note", signed.note])
      #expect(alone.status == 64)
      #expect(alone.error.contains("go together"))

      // The log cut by its last line: the page and stderr say the note does not verify.
      try Self.write(Array(Self.lines(signed.log).dropLast()), to: signed.log)
      let cut = try ReplayProcess.run(
        report + ["--note", signed.note, "--key", signed.verifier, "--json"])
      #expect(cut.status == 0, "\(cut.error)")
      #expect(cut.output.contains(#""noteVerifies":false"#))
      #expect(cut.error.contains("the signed note does not verify: the log has 146 events"))
      let refuted = String(decoding: fileBytes(page), as: UTF8.self)
      #expect(refuted.contains("does not verify: the log has 146 events, fewer than the 147"))
    }
  }

  @Test func keygenNeverOverwritesAndUsageErrorsAre64() throws {
    try withTemporaryDirectory { directory in
      let key = directory + "/k"
      #expect(try ReplayProcess.run(["keygen", "--name", "a", "--output", key]).status == 0)
      let before = fileBytes(key)
      let again = try ReplayProcess.run(["keygen", "--name", "a", "--output", key])
      #expect(again.status == 73)
      #expect(fileBytes(key) == before)
      let space = try ReplayProcess.run(["keygen", "--name", "a b", "--output", directory + "/k2"])
      #expect(space.status == 64)
      #expect(!FileManager.default.fileExists(atPath: directory + "/k2"))
      let log = try RepositoryFiles.copySampleLog(to: directory)
      #expect(try ReplayProcess.run(["prove", "--log", log]).status == 64)
      #expect(try ReplayProcess.run(["prove", "148", "--log", log]).status == 65)
      #expect(try ReplayProcess.run(["head", "--log", log, "--origin", "x"]).status == 64)
    }
  }

  /// `kill -9` while writers keep the tree (`append --file` of 300 events saves the sidecar,
  /// single appends leave it behind): `head` then gives the root of the log's lines, the same
  /// as a tree rebuilt from scratch.
  @Test func headAfterKillDashNineEqualsARebuild() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let input = directory + "/in.jsonl"
      let done = directory + "/done.txt"
      try (1...300).map {
        #"{"stream":"contact-\#($0)","type":"ContactFavorited","data":{"id":"\#($0)"}}"#
      }
      .joined(separator: "\n").appending("\n")
      .write(toFile: input, atomically: false, encoding: .utf8)
      let replay = ReplayProcess.executable.path
      let script = """
        for i in $(seq 1 100000); do
          "\(replay)" append --file "\(input)" --log "\(log)" > /dev/null || exit 1
          "\(replay)" append --log "\(log)" --stream contact-$i --type ContactFavorited \
            --data "{\\"id\\":\\"$i\\"}" > /dev/null || exit 1
          echo $i >> "\(done)"
        done
        """
      // Killed mid-way through the fifth round's writes.
      try ReplayProcess.killDashNine(script: script, log: log, once: done, holds: 4, extra: 0.07)
      // Whatever the killed writer left uncommitted is cut by the next writer.
      let recovery = try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
        #"{"id":"1"}"#,
      ])
      #expect(recovery.status == 0, "\(recovery.error)")
      #expect(try ReplayProcess.run(["verify", "--log", log]).status == 0)
      let leaves = Self.lines(log).map { MerkleTree.leafHash(Array($0.utf8)) }
      #expect(leaves.count >= 4 * 301 + 1)
      let expected =
        #"{"treeSize":\#(leaves.count),"rootHash":"\#(SHA256.hex(MerkleTree.root(leafHashes: leaves)))"}"#
      let head = try ReplayProcess.run(["head", "--log", log, "--json"])
      #expect(head.status == 0, "\(head.error)")
      #expect(head.output.trimmingCharacters(in: .newlines) == expected)
      try FileManager.default.removeItem(atPath: log + ".tree")
      let rebuilt = try ReplayProcess.run(["head", "--log", log, "--json"])
      #expect(rebuilt.output == head.output)
    }
  }
}
