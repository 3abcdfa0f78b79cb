import Foundation

/// Files of the repository the tests read: the seed data and the sample log, found from this
/// file's path (`Tests/ReplayTestSupport/...`), not bundled.
public enum RepositoryFiles {
  /// The repository's root folder.
  public static let root: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.pathComponents.count > 1, url.lastPathComponent != "Tests" {
      url.deleteLastPathComponent()
    }
    return url.deletingLastPathComponent()
  }()

  /// The real source files: `$REPLAY_SEED_DATA` when set, else the repository's copy in
  /// `eventlogs/seed-data`.
  public static let seedDataDirectory: String = {
    if let path = ProcessInfo.processInfo.environment["REPLAY_SEED_DATA"], !path.isEmpty {
      return path
    }
    return root.appendingPathComponent("eventlogs/seed-data").path
  }()

  /// The path of the seed file `name` (`contacts-v3.json`).
  public static func seedDataPath(_ name: String) -> String {
    seedDataDirectory + "/" + name
  }

  /// The bytes of the seed file `name`.
  public static func seedData(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: seedDataPath(name))))
  }

  /// The shipped sample log, `eventlogs/sample.jsonl`.
  public static let sampleLog: String = root.appendingPathComponent("eventlogs/sample.jsonl").path

  /// Copies the sample log and its key store (`sample.jsonl.keys`, which its contacts' personal
  /// data needs) into `directory`, as `name`; returns the copy's path.
  @discardableResult
  public static func copySampleLog(
    to directory: String, as name: String = "sample.jsonl"
  ) throws -> String {
    let path = directory + "/" + name
    try FileManager.default.copyItem(atPath: sampleLog, toPath: path)
    try FileManager.default.copyItem(atPath: sampleLog + ".keys", toPath: path + ".keys")
    return path
  }
}
