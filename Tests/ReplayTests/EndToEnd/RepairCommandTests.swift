import Foundation
import Testing

/// `replay repair`: what it cuts and keeps, in events and seqs, and how to undo it.
@Suite struct RepairCommandTests {
  /// The sample log with one byte flipped inside line 50 (seq 50, in the write of seqs 18...88).
  static func sampleWithLine50Damaged(in directory: String) throws -> (log: String, bytes: [UInt8])
  {
    var bytes = fileBytes(SampleLogTests.sample)
    let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    bytes[lineStarts[49] + 60] ^= 0x01
    let log = directory + "/sample.jsonl"
    try Data(bytes).write(to: URL(fileURLWithPath: log))
    return (log, bytes)
  }

  @Test func aFlippedByteKeepsTheIntactStartOfItsWriteAndSaysWhatWasCutAndHowToUndoIt() throws {
    try withTemporaryDirectory { directory in
      let (log, damaged) = try Self.sampleWithLine50Damaged(in: directory)
      let shown = try ReplayProcess.run(["repair", "--log", log])
      #expect(shown.status == 74)
      #expect(fileBytes(log) == damaged)
      #expect(
        shown.output.hasPrefix(
          "would cut seq 50...147 (98 lines) of '\(log)': line 50 (byte 21362): checksum mismatch"))
      #expect(
        shown.output.contains(
          "would keep seq 1...49 (49 events): seq 18...49 of the write of seq 18...88 (its lines "
            + "before the damage) would be written again as a write of their own, \"batch\":[18,49]\n"
        ))

      let applied = try ReplayProcess.run(["repair", "--log", log, "--apply"])
      #expect(applied.status == 0, "\(applied.error)")
      let quarantined = try #require(QuarantineFolder.files(of: log).first)
      #expect(quarantined.hasSuffix("-after-seq17-byte8298.jsonl"))
      #expect(
        applied.output == """
          cut seq 50...147 (98 lines) of '\(log)': line 50 (byte 21362): checksum mismatch: the line says 7cb0eaed, its bytes give 892a5b5d
          kept seq 1...49 (49 events): seq 18...49 of the write of seq 18...88 (its lines before the damage) were written again as a write of their own, "batch":[18,49]
          moved 110181 bytes (byte 8298 to the end: seq 18...88 and after, as they were) into '\(quarantined)'
          to undo: truncate -s 8298 '\(log)' && cat '\(quarantined)' >> '\(log)'

          """)
      // Nothing vanished: the bytes before the cut are as they were, and the quarantine holds
      // every byte from there on.
      let repaired = fileBytes(log)
      #expect(Array(repaired[..<8298]) + fileBytes(quarantined) == damaged)
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0, "\(verify.output)")
      #expect(verify.output.hasPrefix("ok: 49 events,"))
      let lines = String(decoding: repaired, as: UTF8.self).split(separator: "\n")
      #expect(lines[17].contains(#""batch":[18,49]"#))
      #expect(lines[16].contains(#""batch":[12,17]"#))
      // The events kept are the same events: only the batch marker and checksum changed.
      let original = String(decoding: damaged, as: UTF8.self).split(separator: "\n")
      #expect(
        lines[17].replacingOccurrences(of: "[18,49]", with: "[18,88]").dropLast(18)
          == original[17].dropLast(18))

      // The printed command undoes the cut byte for byte.
      let undo = Process()
      undo.executableURL = URL(fileURLWithPath: "/bin/sh")
      undo.arguments = [
        "-c", "truncate -s 8298 '\(log)' && cat '\(quarantined)' >> '\(log)'",
      ]
      try undo.run()
      undo.waitUntilExit()
      #expect(undo.terminationStatus == 0)
      #expect(fileBytes(log) == damaged)
    }
  }

  @Test func jsonSaysTheCutAndTheKeptSeqsAsData() throws {
    try withTemporaryDirectory { directory in
      let (log, _) = try Self.sampleWithLine50Damaged(in: directory)
      let shown = try ReplayProcess.run(["repair", "--log", log, "--json"])
      #expect(shown.status == 74)
      let reason =
        "line 50 (byte 21362): checksum mismatch: the line says 7cb0eaed, its bytes give 892a5b5d"
      #expect(
        shown.output
          == #"{"applied":false,"cut":{"firstSeq":50,"lastSeq":147,"lines":98,"bytes":110181,"#
          + #""fromByte":8298,"reason":"\#(reason)"},"kept":{"lastSeq":49,"#
          + #""rewritten":{"write":[18,88],"firstSeq":18,"lastSeq":49}},"checkpointsRemoved":[],"#
          + #""quarantine":null,"undo":null}"#
          + "\n")
      let applied = try ReplayProcess.run(["repair", "--log", log, "--apply", "--json"])
      #expect(applied.status == 0)
      let quarantined = try #require(QuarantineFolder.files(of: log).first)
      #expect(applied.output.hasPrefix(#"{"applied":true,"cut":{"firstSeq":50,"#))
      #expect(applied.output.contains(#""quarantine":"\#(quarantined)","undo":"truncate -s 8298 "#))
      let whole = try ReplayProcess.run(["repair", "--log", log, "--json"])
      #expect(whole.status == 0)
      #expect(whole.output == #"{"applied":false,"cut":null}"# + "\n")
    }
  }

  /// Checkpoints saved before the damage that cover lines the cut removes or rewrites go with
  /// the cut: otherwise every replay would refuse a log shorter than its checkpoints say.
  @Test func checkpointsOfChangedLinesGoWithTheCut() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/sample.jsonl"
      try FileManager.default.copyItem(atPath: SampleLogTests.sample, toPath: log)
      for seq in ["17", "88", "108"] {
        let saved = try ReplayProcess.run(["checkpoint", "--at", seq, "--log", log])
        #expect(saved.status == 0, "\(saved.error)")
      }
      var bytes = fileBytes(log)
      let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
      bytes[lineStarts[49] + 60] ^= 0x01
      try Data(bytes).write(to: URL(fileURLWithPath: log))
      let shown = try ReplayProcess.run(["repair", "--log", log])
      #expect(
        shown.output.contains(
          "would delete the checkpoints at seq 88, seq 108 (caches of lines the cut changes)\n"))
      let applied = try ReplayProcess.run(["repair", "--log", log, "--apply", "--json"])
      #expect(applied.status == 0, "\(applied.error)")
      #expect(applied.output.contains(#""checkpointsRemoved":[88,108]"#))
      let left = try FileManager.default.contentsOfDirectory(atPath: log + ".checkpoints")
        .filter { $0.hasSuffix(".ckpt") }
      #expect(left == ["seq-000000000017.ckpt"])
      let state = try ReplayProcess.run(["state", "--log", log, "--json"])
      #expect(state.status == 0, "\(state.error)")
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0, "\(verify.output)")
    }
  }

  /// A write whose last line never landed was never acknowledged: none of it is kept.
  @Test func anUnfinishedWriteIsCutWhole() throws {
    try withTemporaryDirectory { directory in
      var bytes = fileBytes(SampleLogTests.sample)
      let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
      // Lines 1...60: the write of seqs 18...88 stops at 60; line 50 damaged as well.
      bytes = Array(bytes[..<lineStarts[60]])
      bytes[lineStarts[49] + 60] ^= 0x01
      let log = directory + "/torn.jsonl"
      try Data(bytes).write(to: URL(fileURLWithPath: log))
      let applied = try ReplayProcess.run(["repair", "--log", log, "--apply"])
      #expect(applied.status == 0, "\(applied.error)")
      #expect(applied.output.hasPrefix("cut seq 18...60 (43 lines) of '\(log)': line 50"))
      #expect(applied.output.contains("kept seq 1...17 (17 events)\n"))
      let quarantined = try #require(QuarantineFolder.files(of: log).first)
      #expect(applied.output.hasSuffix("to undo: cat '\(quarantined)' >> '\(log)'\n"))
      #expect(fileBytes(log) + fileBytes(quarantined) == bytes)
    }
  }
}

/// The quarantine files beside a log, oldest first.
enum QuarantineFolder {
  static func files(of log: String) throws -> [String] {
    let folder = log + ".quarantine"
    return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map {
      folder + "/" + $0
    }
  }
}
