import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

extension LogMigration {
  /// The files a migrate into `output` that did not finish left behind: its temporary log
  /// `<output>.migrating-<pid>` and, while `output` does not exist, the key store
  /// `<output>.keys` it began (a migrate refuses to start when that file exists, so the one
  /// found beside its temporary log is its own).
  public struct Leftovers: Sendable, Equatable {
    /// The process that wrote them.
    public var processID: Int32
    /// Whether that process is still running (then nothing is removed).
    public var isRunning: Bool
    /// The files, the key store first.
    public var paths: [String]
  }

  /// The temporary logs beside `output`, each with its process and the files it left.
  public func leftovers() -> [Leftovers] {
    let folder = (output as NSString).deletingLastPathComponent
    let name = (output as NSString).lastPathComponent
    let prefix = name + Self.temporaryInfix
    guard
      let names = try? FileManager.default.contentsOfDirectory(
        atPath: folder.isEmpty ? "." : folder)
    else { return [] }
    let keys = KeyStore.path(forLog: output)
    let ownsKeys =
      !FileManager.default.fileExists(atPath: output)
      && FileManager.default.fileExists(atPath: keys)
    return names.filter { $0.hasPrefix(prefix) }.sorted().compactMap { entry in
      guard let pid = Int32(entry.dropFirst(prefix.count)), pid > 0 else { return nil }
      let temporary = folder.isEmpty ? entry : folder + "/" + entry
      let isRunning = kill(pid, 0) == 0 || errno == EPERM
      return Leftovers(
        processID: pid, isRunning: isRunning, paths: (ownsKeys ? [keys] : []) + [temporary])
    }
  }

  /// Removes what migrates that were killed left (their process is gone), the key store before
  /// the temporary log that shows it is a leftover, and syncs the folder; returns what went.
  /// - Throws: `ExportError.cannotCreateOutput` when a migrate into the same output is still
  ///   running, naming its process; `EngineError.io` when a leftover cannot be removed.
  public func removeLeftoversOfKilledMigrations() throws -> [Leftovers] {
    let found = leftovers()
    if let running = found.first(where: \.isRunning) {
      throw ExportError.cannotCreateOutput(
        path: output,
        reason:
          "another migrate (process \(running.processID)) is writing it now, in "
          + "'\(running.paths.last ?? output)'; wait for it to end, or choose another --output")
    }
    var removed: [Leftovers] = []
    for leftover in found {
      for path in leftover.paths where PathOperations.unlink(path) != 0 && errno != ENOENT {
        throw EngineError.io(path: path, operation: "remove", code: errno)
      }
      removed.append(leftover)
    }
    if !removed.isEmpty { FileDescriptor.synchronizeDirectory(containing: output) }
    return removed
  }

  /// `<output>` + this + the process id names a migrate's temporary log.
  static let temporaryInfix = ".migrating-"
}
