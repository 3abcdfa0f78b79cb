#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Writes a whole file atomically: readers see the old file or the new one, never a part.
///
/// The bytes go to a new temporary file next to the destination
/// (`.<name>.<pid>-<random>.tmp`, created exclusively), are synced, and the temporary file is
/// renamed over the destination; then the directory is synced. On any failure the temporary
/// file is removed and the destination is untouched. A new file gets mode 0666 less the umask;
/// a file that is replaced keeps its permission bits.
public enum AtomicFile {
  /// Writes `bytes` to `path`, replacing what is there.
  /// - Parameters:
  ///   - bytes: the file's whole content.
  ///   - path: the destination.
  ///   - protected: a file that must not be replaced (the event log being exported): when
  ///     `path` names it, nothing is written.
  /// - Throws: `ExportError.cannotCreateOutput` with the system's reason.
  public static func write(
    _ bytes: [UInt8], to path: String, protecting protected: String? = nil
  ) throws(ExportError) {
    let existing = FileDescriptor.status(atPath: path)
    if let protected, let existing, let log = FileDescriptor.status(atPath: protected),
      existing.device == log.device, existing.inode == log.inode
    {
      throw .cannotCreateOutput(
        path: path, reason: "it is the event log itself; choose another file")
    }
    if existing?.isDirectory == true {
      throw .cannotCreateOutput(path: path, reason: systemErrorMessage(EISDIR))
    }
    let (directory, name) = split(path)
    let temporary =
      directory + "/." + name + ".\(getpid())-"
      + String(UInt32.random(in: .min ... .max), radix: 16) + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else {
      throw .cannotCreateOutput(path: path, reason: systemErrorMessage(errno))
    }
    let file = FileDescriptor(rawValue: descriptor, path: temporary)
    do throws(EngineError) {
      if let mode = permissions(atPath: path) { _ = fchmod(descriptor, mode) }
      let written = bytes.withUnsafeBytes { buffer in
        Result { () throws(EngineError) in try file.writeAll(buffer) }
      }
      try written.get()
      try file.synchronize()
    } catch {
      file.close()
      unlink(temporary)
      throw .cannotCreateOutput(path: path, reason: reason(error))
    }
    file.close()
    guard rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw .cannotCreateOutput(path: path, reason: systemErrorMessage(code))
    }
    FileDescriptor.synchronizeDirectory(containing: path)
  }

  /// The folder holding `path` (`.` for a bare name) and the file's name.
  static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = slash == path.startIndex ? "/" : String(path[..<slash])
    return (directory, String(path[path.index(after: slash)...]))
  }

  /// The permission bits of the regular file at `path`, if there is one.
  static func permissions(atPath path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return info.st_mode & 0o7777
  }

  /// The system's message in an I/O error.
  static func reason(_ error: EngineError) -> String {
    if case .io(_, let operation, let code) = error {
      return "\(operation) failed: \(systemErrorMessage(code))"
    }
    return error.description
  }
}
