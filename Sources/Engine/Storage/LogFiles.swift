import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Every file that belongs to a log, and the one check that a path a user names for writing
/// (`--output`) is none of them.
///
/// A log's files are the log itself, its key store (`<log>.keys`), its index (`<log>.index`),
/// its tree (`<log>.tree`),
/// its checkpoints folder (`<log>.checkpoints/`) and everything in it, its quarantine folder
/// (`<log>.quarantine/`) and everything in it, and the temporary files its writers make beside
/// it: `<log>.index.tmp-<pid>`, `<log>.migrating-<pid>`, `<log>.keys.tmp-<pid>-<hex>` and
/// `<log>.tree.tmp-<pid>-<hex>` (`SidecarFile`), and `.<log>.….tmp` (the key store
/// rewritten atomically). The names are made here and nowhere else (`keyStorePath`,
/// `indexPath`, …); the types that write the files take them from here.
///
/// A path is compared by what it names, not by how it is spelled: symbolic links are followed
/// (the last component's chain of links, then the real path of its folder), an existing file is
/// compared by device and inode (a hard link to the key store is the key store), and a file
/// that does not exist yet is compared by name (`<log>.keys` before the log has a key store).
/// The log's files are taken both beside the log as named and beside the file a link to it
/// ends at.
///
/// - Note: names are compared byte for byte; on a case-insensitive file system an existing
///   file is still caught by its inode, a missing one spelled in another case is not.
package struct LogFiles: Sendable, Equatable {
  /// The log, as named by the user.
  public let logPath: String
  /// Temporary files a writer of this log will make, beyond the ones named by pattern.
  public var temporaryPaths: [String] = []

  /// The files of the log at `logPath`.
  public init(logPath: String) {
    self.logPath = logPath
  }

  // The one place that names the files beside a log.

  /// The key store, `<log>.keys`.
  public var keyStorePath: String { logPath + ".keys" }
  /// The index, `<log>.index`.
  public var indexPath: String { logPath + ".index" }
  /// The tree (`replay head`, `prove`), `<log>.tree`.
  public var treePath: String { logPath + ".tree" }
  /// The checkpoints folder, `<log>.checkpoints`.
  public var checkpointsPath: String { logPath + ".checkpoints" }
  /// The quarantine folder, `<log>.quarantine`.
  public var quarantinePath: String { logPath + ".quarantine" }

  /// What a file of a log is to it.
  public enum Role: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case log
    case keyStore
    case index
    case tree
    case checkpoints
    case checkpoint
    case quarantine
    case quarantined
    case temporary

    /// `the key store`, `a file in the checkpoints folder`, ….
    public var description: String {
      switch self {
      case .log: "the event log"
      case .keyStore: "the key store"
      case .index: "the index"
      case .tree: "the tree (`replay head`, `prove`)"
      case .checkpoints: "the checkpoints folder"
      case .checkpoint: "a file in the checkpoints folder"
      case .quarantine: "the quarantine folder"
      case .quarantined: "a file in the quarantine folder"
      case .temporary: "a temporary file"
      }
    }
  }

  /// The log's files that have a fixed name, with their roles: the log, the key store, the
  /// index and the two folders.
  public var fixedPaths: [(path: String, role: Role)] {
    [
      (logPath, .log), (keyStorePath, .keyStore), (indexPath, .index), (treePath, .tree),
      (checkpointsPath, .checkpoints), (quarantinePath, .quarantine),
    ] + temporaryPaths.map { ($0, .temporary) }
  }

  /// Which file of the log `path` names, if any.
  /// - Parameter path: any path, relative to the working directory or absolute; it need not
  ///   exist.
  /// - Returns: the role of the file of the log that `path` is, or would be once written;
  ///   `nil` when it is none of them.
  public func role(of path: String) -> Role? {
    let candidate = Self.canonical(path)
    if let status = FileDescriptor.status(atPath: candidate), let role = role(of: status) {
      return role
    }
    var logs = [self]
    let resolvedLog = Self.canonical(logPath)
    if resolvedLog != logPath {
      var resolved = LogFiles(logPath: resolvedLog)
      resolved.temporaryPaths = temporaryPaths
      logs.append(resolved)
    }
    for files in logs {
      if let role = files.roleByName(ofCanonical: candidate) { return role }
    }
    return nil
  }

  /// Throws when `path`, a file the user named for writing, is a file of the log.
  /// - Parameters:
  ///   - path: the file to be written, as the user named it.
  ///   - option: the option that named it, for the message.
  /// - Throws: `ExportError.fileOfLog` naming the file, what it is to the log, and the log.
  public func refuseAsOutput(_ path: String, option: String = "--output") throws(ExportError) {
    guard let role = role(of: path) else { return }
    throw .fileOfLog(path: path, role: role, log: logPath, option: option)
  }

  /// Throws when a file of this log is a file of `other`, or the other way round: two logs
  /// that must not share a byte (a migration's source and its output).
  /// - Parameters:
  ///   - other: the files of the other log (the one `option` names).
  ///   - option: the option that named the other log, for the message.
  /// - Throws: `ExportError.fileOfLog` when the other log is a file of this one,
  ///   `ExportError.sharedFile` naming the first other file found in both.
  public func refuseSharingFiles(
    with other: LogFiles, option: String = "--output"
  ) throws(ExportError) {
    for (path, otherRole) in other.fixedPaths {
      guard let role = role(of: path) else { continue }
      if otherRole == .log {
        throw .fileOfLog(path: path, role: role, log: logPath, option: option)
      }
      throw .sharedFile(
        path: path, role: role, log: logPath, otherRole: otherRole, otherLog: other.logPath,
        option: option)
    }
    for (path, role) in fixedPaths {
      guard let otherRole = other.role(of: path) else { continue }
      throw .sharedFile(
        path: path, role: role, log: logPath, otherRole: otherRole, otherLog: other.logPath,
        option: option)
    }
  }

  /// The role of the existing file with `status`, compared by device and inode with every
  /// existing file of the log (the folders' entries too).
  private func role(of status: FileDescriptor.Status) -> Role? {
    func same(_ path: String) -> Bool {
      guard let other = FileDescriptor.status(atPath: path) else { return false }
      return other.device == status.device && other.inode == status.inode
    }
    for (path, role) in fixedPaths where same(path) { return role }
    let folders: [(String, Role)] = [
      (checkpointsPath, .checkpoint), (quarantinePath, .quarantined),
    ]
    for (folder, role) in folders {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
      for name in names where same(folder + "/" + name) { return role }
    }
    return nil
  }

  /// The role of the file at `candidate` (a canonical path) by its name: one of the log's files
  /// with a fixed name, a file inside one of its folders, or one of its writers' temporary
  /// files.
  private func roleByName(ofCanonical candidate: String) -> Role? {
    for (path, role) in fixedPaths where Self.canonical(path) == candidate { return role }
    let (folder, name) = AtomicFile.split(candidate)
    let insides: [(String, Role)] = [
      (Self.canonical(checkpointsPath), .checkpoint),
      (Self.canonical(quarantinePath), .quarantined),
    ]
    for (directory, role) in insides
    where folder == directory || folder.hasPrefix(directory == "/" ? "/" : directory + "/") {
      return role
    }
    let log = Self.canonical(logPath)
    let (logFolder, logName) = AtomicFile.split(log)
    guard folder == logFolder else { return nil }
    let resolved = LogFiles(logPath: log)
    let index = AtomicFile.split(resolved.indexPath).name
    let keys = AtomicFile.split(resolved.keyStorePath).name
    let tree = AtomicFile.split(resolved.treePath).name
    if name.hasPrefix(index + ".tmp-") || name.hasPrefix(logName + ".migrating-")
      || name.hasPrefix(keys + SidecarFile.temporaryInfix)
      || name.hasPrefix(tree + SidecarFile.temporaryInfix)
      || (name.hasPrefix("." + logName + ".") && name.hasSuffix(".tmp"))
    {
      return .temporary
    }
    return nil
  }

  /// `path` with the chain of symbolic links at its end followed and its folder made real
  /// (absolute, no `.`, `..` or links); a folder that does not exist is made canonical the
  /// same way, from the nearest one that does.
  static func canonical(_ path: String, depth: Int = 0) -> String {
    let resolved = AtomicFile.resolvingSymbolicLinks(path)
    let (folder, name) = AtomicFile.split(resolved)
    if name.isEmpty || name == "." || name == ".." {
      return real(resolved) ?? resolved
    }
    // A loop of links never resolves: past 40 folders up, take the path as it is spelled.
    guard let realFolder = real(folder) ?? (depth < 40 ? canonical(folder, depth: depth + 1) : nil)
    else { return resolved }
    return (realFolder == "/" ? "" : realFolder) + "/" + name
  }

  /// The real path of an existing `path`.
  private static func real(_ path: String) -> String? {
    guard let pointer = realpath(path, nil) else { return nil }
    defer { free(pointer) }
    return String(cString: pointer)
  }
}
