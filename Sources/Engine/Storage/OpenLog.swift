import Synchronization

/// One log as this process has it open: its files, named once (``LogFiles``), the one way to
/// open the log for reading, and what the process keeps of its files (the key store,
/// `KeyStoreCache`).
///
/// Every reader (`LogReader`) and writer (`EventLog`) of a log in one process holds the same
/// `OpenLog`, so they share one parse of the key store: `OpenLog.named(_:)` hands out the one
/// that is open for a path while anyone holds it. What is kept is checked against the files
/// each time it is used (a key store another process changed is read again), and goes when the
/// last reader or writer of the log lets go of it.
///
/// Paths are compared as spelled: two spellings of one file get two owners, each correct on
/// its own (they only do not share what they read).
package final class OpenLog: Sendable {
  /// The log and the files beside it.
  package let files: LogFiles
  /// The key store as this process has read it.
  let keys: KeyStoreCache

  /// The log's path, as its readers and writers name it.
  package var path: String { files.logPath }

  private init(path: String) {
    files = LogFiles(logPath: path)
    keys = KeyStoreCache(files: files)
  }

  /// The owners that readers or writers hold, by path.
  private static let open = Mutex<[String: Weak]>([:])

  private struct Weak: @unchecked Sendable {
    weak var log: OpenLog?
  }

  /// The owner of the log at `path` in this process: the one that is open, or a new one.
  package static func named(_ path: String) -> OpenLog {
    open.withLock { open in
      if let log = open[path]?.log { return log }
      // Entries whose owner is gone are swept as the table grows, so it stays as large as the
      // logs in use.
      if open.count >= 64 { open = open.filter { $0.value.log != nil } }
      let log = OpenLog(path: path)
      open[path] = Weak(log: log)
      return log
    }
  }

  /// Opens the log read-only, the way every reader opens it.
  /// - Throws: `EngineError.fileNotFound` when there is no log, `.io` when it cannot be opened.
  package func openForReading() throws(EngineError) -> FileDescriptor {
    try FileDescriptor.open(path, .readOnly)
  }
}
