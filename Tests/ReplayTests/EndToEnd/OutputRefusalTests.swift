import Foundation
import Testing

/// Every file under `directory`, by relative path: a file's bytes, a link's target, a folder's
/// mark. Two snapshots are equal when not a byte, link or name changed.
private func snapshot(_ directory: String) throws -> [String: [UInt8]] {
  let manager = FileManager.default
  var files: [String: [UInt8]] = [:]
  for name in try manager.subpathsOfDirectory(atPath: directory) {
    let path = directory + "/" + name
    let type = try manager.attributesOfItem(atPath: path)[.type] as? FileAttributeType
    switch type {
    case .typeSymbolicLink?:
      files[name] = Array("link to \(try manager.destinationOfSymbolicLink(atPath: path))".utf8)
    case .typeDirectory?:
      files[name] = Array("folder".utf8)
    default:
      files[name] = fileBytes(path)
    }
  }
  return files
}

/// `--output` never names a file of the log: `report`, `export` and `migrate` refuse the log,
/// its key store, index, checkpoints, quarantine and temporary files, through links too, with
/// exit 73, and write nothing.
@Suite struct OutputRefusalTests {
  /// The sample log with every kind of sidecar and links to its key store: `(log, folder)`.
  private func sampleWithSidecars(in directory: String) throws -> String {
    let log = try RepositoryFiles.copySampleLog(to: directory)
    let checkpoint = try ReplayProcess.run(["checkpoint", "--every", "50", "--log", log])
    #expect(checkpoint.status == 0, "\(checkpoint.error)")
    // An index and a quarantined cut as a writer and a recovery would leave them (their
    // content does not matter: nothing may read or write them here).
    try Data("an index\n".utf8).write(to: URL(fileURLWithPath: log + ".index"))
    let quarantine = log + ".quarantine"
    try FileManager.default.createDirectory(atPath: quarantine, withIntermediateDirectories: false)
    try Data("{\"torn\n".utf8).write(
      to: URL(fileURLWithPath: quarantine + "/20261101T090000Z-after-seq147-byte118538.jsonl"))
    let manager = FileManager.default
    try manager.createSymbolicLink(
      atPath: directory + "/keys-link.html", withDestinationPath: "sample.jsonl.keys")
    try manager.linkItem(atPath: log + ".keys", toPath: directory + "/keys-hard-link.json")
    try manager.createSymbolicLink(
      atPath: directory + "/log-link.html", withDestinationPath: log)
    return log
  }

  /// Each refused output (relative to the folder) and what the message calls it.
  static let refused: [(output: String, what: String)] = [
    ("sample.jsonl", "the event log '{log}' itself"),
    ("log-link.html", "the event log '{log}' itself"),
    ("sample.jsonl.keys", "the key store of log '{log}'"),
    ("keys-link.html", "the key store of log '{log}'"),
    ("keys-hard-link.json", "the key store of log '{log}'"),
    ("sample.jsonl.index", "the index of log '{log}'"),
    ("sample.jsonl.checkpoints", "the checkpoints folder of log '{log}'"),
    (
      "sample.jsonl.checkpoints/seq-000000000050.ckpt",
      "a file in the checkpoints folder of log '{log}'"
    ),
    ("sample.jsonl.checkpoints/every", "a file in the checkpoints folder of log '{log}'"),
    ("sample.jsonl.checkpoints/new.html", "a file in the checkpoints folder of log '{log}'"),
    ("sample.jsonl.quarantine", "the quarantine folder of log '{log}'"),
    (
      "sample.jsonl.quarantine/20261101T090000Z-after-seq147-byte118538.jsonl",
      "a file in the quarantine folder of log '{log}'"
    ),
    ("sample.jsonl.index.tmp-12345", "a temporary file of log '{log}'"),
    (".sample.jsonl.keys.12345-9af3.tmp", "a temporary file of log '{log}'"),
  ]

  static let commands: [[String]] = [
    ["report"], ["export", "contacts"], ["migrate", "--encrypt-personal-data"],
  ]

  @Test(arguments: commands)
  func everyFileOfTheLogIsRefusedAndNothingChanges(command: [String]) throws {
    try withTemporaryDirectory { directory in
      let log = try sampleWithSidecars(in: directory)
      let before = try snapshot(directory)
      for (output, what) in Self.refused {
        let path = directory + "/" + output
        let result = try ReplayProcess.run(command + ["--output", path, "--log", log])
        #expect(result.status == 73, "\(command) --output \(output): \(result.error)")
        #expect(result.output == "")
        let message = what.replacingOccurrences(of: "{log}", with: log)
        #expect(
          result.error == "Error: '\(path)' is \(message); choose another --output\n",
          "\(command) --output \(output)")
        #expect(try snapshot(directory) == before, "\(command) --output \(output) wrote")
      }
      // Another name in the same folder is written.
      let other = directory + "/other"
      let accepted = try ReplayProcess.run(command + ["--output", other, "--log", log])
      #expect(accepted.status == 0, "\(command): \(accepted.error)")
      #expect(FileManager.default.fileExists(atPath: other))
    }
  }

  @Test func migrateRefusesTheKeyStoreOfASourceThatHasNoneYet() throws {
    try withTemporaryDirectory { directory in
      let old = directory + "/old.jsonl"
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.root.appendingPathComponent(
          "Tests/Fixtures/sample-before-sealing.jsonl"
        ).path, toPath: old)
      let before = try snapshot(directory)
      let session = Session(log: old)
      let refused = try session.run(
        ["migrate", "--encrypt-personal-data", "--output", old + ".keys"])
      #expect(refused.status == 73)
      #expect(
        refused.error
          == "Error: '\(old).keys' is the key store of log '\(old)'; choose another --output\n")
      #expect(try snapshot(directory) == before)
      // The old log is still writable: no key store of the new log is in its way.
      let favorited = try ReplayProcess.run(["contacts", "favorite", "13", "--log", old])
      #expect(favorited.status == 0, "\(favorited.error)")
    }
  }

  @Test func migrateRefusesANewLogWhoseFilesAreTheOldLogs() throws {
    try withTemporaryDirectory { directory in
      // The old log is named like the new log's index.
      let old = directory + "/new.index"
      try FileManager.default.copyItem(
        atPath: RepositoryFiles.root.appendingPathComponent(
          "Tests/Fixtures/sample-before-sealing.jsonl"
        ).path, toPath: old)
      let before = try snapshot(directory)
      let new = directory + "/new"
      let refused = try ReplayProcess.run(
        ["migrate", "--encrypt-personal-data", "--output", new, "--log", old])
      #expect(refused.status == 73)
      #expect(
        refused.error
          == "Error: '\(old)', the index of log '\(new)', is also the event log '\(old)' itself; "
          + "choose another --output\n")
      #expect(try snapshot(directory) == before)
    }
  }
}
