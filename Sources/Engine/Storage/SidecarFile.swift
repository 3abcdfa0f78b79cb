import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The one way a file beside a log (the key store, a checkpoint, the checkpoint folder's
/// settings) is written whole: a temporary file named after it, `<name>.tmp-<pid>-<16 hex>`,
/// in the same folder, created exclusively with mode 0600, written, synced, renamed over the
/// file, and the folder synced. A crash leaves the old file or the new one, never a part, and
/// at most a temporary file that a later writer recognises by its name and removes
/// (``removeLeftovers(of:)``): the erasure that destroys a key removes every such copy of the
/// key store first.
enum SidecarFile {
  /// The infix every temporary name has after the file's own name.
  static let temporaryInfix = ".tmp-"

  /// A fresh temporary path for `path`.
  static func temporaryPath(for path: String) -> String {
    let random = UInt64.random(in: .min ... .max)
    let digits = String(random, radix: 16)
    return path + temporaryInfix + "\(getpid())-"
      + String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// Writes `bytes` as the whole of `path` (see the type's summary); a file replaced keeps its
  /// permission bits.
  /// - Throws: `EngineError.io` naming the step that failed; the temporary file is then
  ///   removed and `path` is as it was.
  static func write(_ bytes: [UInt8], to path: String) throws(EngineError) {
    let temporary = temporaryPath(for: path)
    do throws(ReplaceFailure) {
      try replace(path, with: bytes, through: temporary, permissions: 0o600)
    } catch {
      switch error {
      case .create(let code): throw .io(path: temporary, operation: "create", code: code)
      case .write(let failure): throw failure
      case .rename(let code): throw .io(path: path, operation: "rename", code: code)
      }
    }
    try synchronizeDirectory(containing: path)
  }

  /// Which step of `replace` failed.
  enum ReplaceFailure: Error {
    /// The temporary file could not be created (`errno`).
    case create(Int32)
    /// Writing or syncing it failed.
    case write(EngineError)
    /// The rename over `path` failed (`errno`).
    case rename(Int32)
  }

  /// The steps every whole-file write takes, here and in `AtomicFile`: `temporary` (beside
  /// `path`) created exclusively with `permissions` (a file replaced keeps its own), written,
  /// synced and renamed over `path`. On failure the temporary file is removed and `path` is as
  /// it was. The caller syncs the folder.
  static func replace(
    _ path: String, with bytes: [UInt8], through temporary: String, permissions: mode_t
  ) throws(ReplaceFailure) {
    let descriptor = PathOperations.createExclusive(temporary, permissions: permissions)
    guard descriptor >= 0 else { throw .create(errno) }
    let file = FileDescriptor(rawValue: descriptor, path: temporary)
    do throws(EngineError) {
      var info = stat()
      if stat(path, &info) == 0 { _ = fchmod(descriptor, info.st_mode & 0o7777) }
      let written = bytes.withUnsafeBytes { buffer in
        Result { () throws(EngineError) in try file.writeAll(buffer) }
      }
      try written.get()
      try file.synchronize()
    } catch {
      file.close()
      PathOperations.unlink(temporary)
      throw .write(error)
    }
    file.close()
    guard PathOperations.rename(temporary, path) == 0 else {
      let code = errno
      PathOperations.unlink(temporary)
      throw .rename(code)
    }
  }

  /// Checks that a file can be created beside `path` (its folder takes new entries) and that
  /// `path`, when it exists, opens for writing: what a rewrite needs, proven before a step
  /// that cannot be taken back.
  /// - Throws: `EngineError.io` saying which.
  static func checkRewritable(_ path: String) throws(EngineError) {
    let temporary = temporaryPath(for: path)
    let descriptor = PathOperations.createExclusive(temporary, permissions: 0o600)
    guard descriptor >= 0 else {
      throw .io(path: temporary, operation: "create", code: errno)
    }
    close(descriptor)
    PathOperations.unlink(temporary)
    if access(path, F_OK) == 0, access(path, W_OK) != 0 {
      throw .io(path: path, operation: "open for writing", code: errno)
    }
  }

  /// The temporary files of `path` left in its folder (by this naming, and by the
  /// `.<name>.<pid>-<random>.tmp` naming earlier versions used for the key store).
  /// - Parameter deadOnly: only those whose process is gone (a live one may still rename its
  ///   file into place).
  static func leftovers(of path: String, deadOnly: Bool) -> [String] {
    let (directory, name) = split(path)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return []
    }
    var found: [String] = []
    for entry in names {
      let pidText: Substring
      if entry.hasPrefix(name + temporaryInfix) {
        pidText = entry.dropFirst(name.count + temporaryInfix.count).prefix { $0 != "-" }
      } else if entry.hasPrefix("." + name + "."), entry.hasSuffix(".tmp") {
        pidText = entry.dropFirst(name.count + 2).prefix { $0 != "-" }
      } else {
        continue
      }
      if deadOnly, let pid = pid_t(pidText), pid > 0, isRunning(pid) { continue }
      found.append(directory + "/" + entry)
    }
    return found.sorted()
  }

  /// Whether the temporary file `path` (named by this type, or `<name>.tmp-<pid>` as earlier
  /// versions named checkpoints') belongs to a process that is gone.
  static func isLeftoverOfDeadProcess(_ path: String) -> Bool {
    let name = split(path).name
    guard let range = name.range(of: temporaryInfix) else { return false }
    let pidText = name[range.upperBound...].prefix { $0 != "-" }
    guard let pid = pid_t(pidText), pid > 0 else { return true }
    return !isRunning(pid)
  }

  /// Whether process `pid` exists (one of another user's counts).
  private static func isRunning(_ pid: pid_t) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
  }

  /// Removes ``leftovers(of:deadOnly:)`` and syncs the folder when any went.
  /// - Returns: the paths that could not be removed.
  @discardableResult
  static func removeLeftovers(of path: String, deadOnly: Bool) -> [String] {
    let leftovers = leftovers(of: path, deadOnly: deadOnly)
    guard !leftovers.isEmpty else { return [] }
    let failed = leftovers.filter { PathOperations.unlink($0) != 0 && errno != ENOENT }
    try? synchronizeDirectory(containing: path)
    return failed
  }

  /// Syncs the folder holding `path`, so that a rename, a new entry or an unlink in it
  /// survives a power loss.
  /// - Throws: `EngineError.io` when the folder cannot be opened or synced.
  static func synchronizeDirectory(containing path: String) throws(EngineError) {
    try synchronize(directory: split(path).directory)
  }

  /// Syncs the folder `directory` itself, so that its new entries and unlinks survive.
  static func synchronize(directory: String) throws(EngineError) {
    // Some file systems refuse fsync on a folder (EINVAL): there is nothing more to do there.
    if PathOperations.synchronize(directory: directory) != 0, errno != EINVAL {
      let code = errno
      let opens = FileDescriptor.status(atPath: directory) != nil
      throw .io(path: directory, operation: opens ? "fsync" : "open", code: code)
    }
  }

  /// Creates the folder `path` if missing, and syncs its parent so the new entry survives a
  /// power loss; the folder's own entries are synced by the writes into it.
  /// - Throws: `EngineError.io` when it cannot be created.
  static func createDirectory(_ path: String) throws(EngineError) {
    var info = stat()
    if stat(path, &info) == 0 { return }
    guard PathOperations.makeDirectory(path, permissions: 0o777) == 0 || errno == EEXIST else {
      throw .io(path: path, operation: "mkdir", code: errno)
    }
    try synchronizeDirectory(containing: path)
  }

  /// Saves `bytes` cut from a file beside the log at `logPath` into the log's quarantine
  /// folder (`<log>.quarantine/<time>-<name>.cut`, mode 0600), synced, before the cut is made.
  /// - Returns: the new file's path.
  /// - Throws: `EngineError.io` when it cannot be made durable; then nothing may be cut.
  @discardableResult
  static func quarantine(
    _ bytes: [UInt8], forLog logPath: String, name: String
  ) throws(EngineError) -> String {
    let directory = Quarantine.directory(forLog: logPath)
    try createDirectory(directory)
    let stamp = String(Int64(Date().timeIntervalSince1970 * 1000))
    let path = directory + "/\(stamp)-\(name).cut"
    try write(bytes, to: path)
    return path
  }

  /// Removes the file `path` and syncs its folder.
  /// - Returns: whether it is gone (or was never there).
  @discardableResult
  static func remove(_ path: String) -> Bool {
    guard PathOperations.unlink(path) == 0 || errno == ENOENT else { return false }
    try? synchronizeDirectory(containing: path)
    return true
  }

  /// The folder and name of `path` (`.` for a bare name).
  static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
  }
}
