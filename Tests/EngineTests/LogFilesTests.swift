import Foundation
import Testing

@testable import Engine

/// A log file and every sidecar it can have, made in `directory`; the log's path.
private func logWithSidecars(in directory: String) throws -> String {
  let log = directory + "/events.jsonl"
  for path in [log, log + ".keys", log + ".index"] {
    try Data("bytes of \(path)\n".utf8).write(to: URL(fileURLWithPath: path))
  }
  for folder in [log + ".checkpoints", log + ".quarantine"] {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
  }
  try Data("checkpoint".utf8).write(
    to: URL(fileURLWithPath: log + ".checkpoints/seq-000000000001.ckpt"))
  try Data("cut".utf8).write(
    to: URL(fileURLWithPath: log + ".quarantine/20261101T090000Z-after-seq1-byte9.jsonl"))
  return log
}

@Suite struct LogFilesTests {
  /// Each sidecar name, relative to the log's folder, and what it is to the log.
  static let sidecars: [(name: String, role: LogFiles.Role)] = [
    ("events.jsonl", .log),
    ("events.jsonl.keys", .keyStore),
    ("events.jsonl.index", .index),
    ("events.jsonl.tree", .tree),
    ("events.jsonl.tree.tmp-4242-00ff00ff00ff00ff", .temporary),
    ("events.jsonl.checkpoints", .checkpoints),
    ("events.jsonl.checkpoints/seq-000000000001.ckpt", .checkpoint),
    ("events.jsonl.checkpoints/seq-000000000002.ckpt", .checkpoint),
    ("events.jsonl.checkpoints/seq-000000000001.ckpt.tmp-42", .checkpoint),
    ("events.jsonl.quarantine", .quarantine),
    ("events.jsonl.quarantine/20261101T090000Z-after-seq1-byte9.jsonl", .quarantined),
    ("events.jsonl.quarantine/new.jsonl", .quarantined),
    ("events.jsonl.index.tmp-4242", .temporary),
    ("events.jsonl.migrating-4242", .temporary),
    (".events.jsonl.keys.4242-9af3.tmp", .temporary),
    (".events.jsonl.4242-9af3.tmp", .temporary),
  ]

  @Test func everySidecarIsAFileOfTheLogWhetherOrNotItExists() throws {
    try withTemporaryDirectory { directory in
      let bare = directory + "/events.jsonl"
      // None of the sidecars exists yet: they are known by name.
      try Data("x\n".utf8).write(to: URL(fileURLWithPath: bare))
      for (name, role) in Self.sidecars {
        #expect(LogFiles(logPath: bare).role(of: directory + "/" + name) == role, "\(name)")
      }
      _ = try logWithSidecars(in: directory)
      for (name, role) in Self.sidecars {
        #expect(LogFiles(logPath: bare).role(of: directory + "/" + name) == role, "\(name)")
      }
    }
  }

  @Test func otherFilesBesideTheLogAreNot() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithSidecars(in: directory)
      for name in [
        "report.html", "events.jsonl.html", "events.json", "events.jsonl.keys.html",
        "other.jsonl.keys", ".events.jsonl.keys", "events.jsonl.indexes", "keys",
      ] {
        #expect(LogFiles(logPath: log).role(of: directory + "/" + name) == nil, "\(name)")
      }
    }
  }

  @Test func aPathIsComparedByWhatItNamesNotHowItIsSpelled() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithSidecars(in: directory)
      let files = LogFiles(logPath: log)
      let manager = FileManager.default
      try manager.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: false)
      // Dots, a relative log path, a link to the key store, a hard link to it, a chain of
      // links, a dangling link to where a key store would be, a link to the folder.
      #expect(files.role(of: directory + "/sub/../events.jsonl.keys") == .keyStore)
      #expect(files.role(of: directory + "/./events.jsonl.index") == .index)
      try manager.createSymbolicLink(
        atPath: directory + "/link.html", withDestinationPath: "events.jsonl.keys")
      #expect(files.role(of: directory + "/link.html") == .keyStore)
      try manager.linkItem(atPath: log + ".keys", toPath: directory + "/sub/hard.json")
      #expect(files.role(of: directory + "/sub/hard.json") == .keyStore)
      try manager.createSymbolicLink(
        atPath: directory + "/sub/chain", withDestinationPath: "../link.html")
      #expect(files.role(of: directory + "/sub/chain") == .keyStore)
      try manager.createSymbolicLink(
        atPath: directory + "/sub/folder", withDestinationPath: "../events.jsonl.checkpoints")
      #expect(files.role(of: directory + "/sub/folder/report.html") == .checkpoint)
      try manager.linkItem(
        atPath: log + ".checkpoints/seq-000000000001.ckpt", toPath: directory + "/sub/ckpt")
      #expect(files.role(of: directory + "/sub/ckpt") == .checkpoint)
      let other = directory + "/other.jsonl"
      try Data("x\n".utf8).write(to: URL(fileURLWithPath: other))
      try manager.createSymbolicLink(
        atPath: directory + "/sub/dangling", withDestinationPath: "../other.jsonl.keys")
      #expect(LogFiles(logPath: other).role(of: directory + "/sub/dangling") == .keyStore)
      #expect(files.role(of: directory + "/sub/dangling") == nil)
      // The log named through a link: its files beside the link and beside the file.
      try manager.createSymbolicLink(
        atPath: directory + "/sub/log.jsonl", withDestinationPath: "../events.jsonl")
      let linked = LogFiles(logPath: directory + "/sub/log.jsonl")
      #expect(linked.role(of: directory + "/sub/log.jsonl.keys") == .keyStore)
      #expect(linked.role(of: log + ".keys") == .keyStore)
      #expect(linked.role(of: log) == .log)
    }
  }

  @Test func aRelativeLogPathIsResolvedFromTheWorkingDirectory() throws {
    let directory = FileManager.default.currentDirectoryPath
    let files = LogFiles(logPath: "events-that-do-not-exist.jsonl")
    #expect(files.role(of: directory + "/events-that-do-not-exist.jsonl.keys") == .keyStore)
    #expect(files.role(of: "./events-that-do-not-exist.jsonl.index") == .index)
    #expect(files.role(of: "events-that-do-not-exist.jsonl.html") == nil)
  }

  @Test func refusingAnOutputNamesTheFileTheLogAndTheOption() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithSidecars(in: directory)
      #expect(throws: ExportError.self) {
        try LogFiles(logPath: log).refuseAsOutput(log + ".keys")
      }
      do throws(ExportError) {
        try LogFiles(logPath: log).refuseAsOutput(log + ".keys")
      } catch {
        #expect(
          error == .fileOfLog(path: log + ".keys", role: .keyStore, log: log, option: "--output"))
        #expect(
          error.description
            == "'\(log).keys' is the key store of log '\(log)'; choose another --output")
      }
      do throws(ExportError) {
        try LogFiles(logPath: log).refuseAsOutput(log)
      } catch {
        #expect(
          error.description == "'\(log)' is the event log '\(log)' itself; choose another --output")
      }
      try LogFiles(logPath: log).refuseAsOutput(directory + "/report.html")
    }
  }

  @Test func twoLogsThatShareAFileAreRefused() throws {
    try withTemporaryDirectory { directory in
      let log = try logWithSidecars(in: directory)
      let files = LogFiles(logPath: log)
      // The new log is a file of the old one.
      for name in ["events.jsonl.keys", "events.jsonl.index", "events.jsonl.checkpoints/new"] {
        #expect(throws: ExportError.self) {
          try files.refuseSharingFiles(with: LogFiles(logPath: directory + "/" + name))
        }
      }
      // The new log's index would be the old log; the old log is in the new one's folder.
      let oldIndex = directory + "/old.index"
      try Data("x\n".utf8).write(to: URL(fileURLWithPath: oldIndex))
      do throws(ExportError) {
        try LogFiles(logPath: oldIndex).refuseSharingFiles(
          with: LogFiles(logPath: directory + "/old"))
        Issue.record("a new log whose index is the old log was accepted")
      } catch {
        #expect(
          error.description
            == "'\(directory)/old.index', the index of log '\(directory)/old', is also the event "
            + "log '\(oldIndex)' itself; choose another --output")
      }
      #expect(throws: ExportError.self) {
        try LogFiles(logPath: log + ".checkpoints/seq-000000000001.ckpt").refuseSharingFiles(
          with: LogFiles(logPath: log))
      }
      // The new log's temporary file is one of the old log's files.
      var temporary = LogFiles(logPath: directory + "/new.jsonl")
      temporary.temporaryPaths = [log + ".index"]
      #expect(throws: ExportError.self) { try files.refuseSharingFiles(with: temporary) }
      try files.refuseSharingFiles(with: LogFiles(logPath: directory + "/new.jsonl"))
    }
  }
}
