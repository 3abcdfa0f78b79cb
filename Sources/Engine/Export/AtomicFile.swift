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
///
/// What is not a regular file is never replaced: a symbolic link is followed, and the file it
/// names is replaced atomically (the link stays a link); a character device or a FIFO
/// (`/dev/null`, `/dev/stdout`, a pipe) is written to directly, not atomically, and a FIFO with
/// no reader is refused rather than waited on; a directory, a block device or a socket is
/// refused.
package enum AtomicFile {
  /// Writes `bytes` to `path`, replacing what is there.
  /// - Parameters:
  ///   - bytes: the file's whole content.
  ///   - path: the destination.
  ///   - protected: the event log being exported or reported: when `path` names any file of
  ///     it (`LogFiles`: the log, its key store, index, checkpoints, quarantine or temporary
  ///     files, through links too), nothing is written.
  /// - Throws: `ExportError.fileOfLog` for a file of the protected log;
  ///   `ExportError.cannotCreateOutput` with the system's reason.
  public static func write(
    _ bytes: [UInt8], to path: String, protecting protected: String? = nil
  ) throws(ExportError) {
    if let protected { try LogFiles(logPath: protected).refuseAsOutput(path) }
    let path = resolvingSymbolicLinks(path)
    let existing = FileDescriptor.status(atPath: path)
    if let kind = existing?.kind, kind != .regular {
      if kind == .directory {
        throw .cannotCreateOutput(path: path, reason: systemErrorMessage(EISDIR))
      }
      guard kind == .characterDevice || kind == .fifo else {
        throw .cannotCreateOutput(
          path: path, reason: "it is \(kind.description), which is never replaced")
      }
      try writeDirectly(bytes, to: path)
      return
    }
    let (directory, name) = split(path)
    let temporary =
      directory + "/." + name + ".\(getpid())-"
      + String(UInt32.random(in: .min ... .max), radix: 16) + ".tmp"
    do throws(SidecarFile.ReplaceFailure) {
      try SidecarFile.replace(path, with: bytes, through: temporary, permissions: 0o666)
    } catch {
      switch error {
      case .create(let code), .rename(let code):
        throw .cannotCreateOutput(path: path, reason: systemErrorMessage(code))
      case .write(let failure):
        throw .cannotCreateOutput(path: path, reason: reason(failure))
      }
    }
    FileDescriptor.synchronizeDirectory(containing: path)
  }

  /// Writes `bytes` into the device or FIFO at `path`, which stays what it is.
  static func writeDirectly(_ bytes: [UInt8], to path: String) throws(ExportError) {
    let descriptor = PathOperations.openExisting(path, flags: O_WRONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      let reason = code == ENXIO ? "it is a FIFO that nobody reads" : systemErrorMessage(code)
      throw .cannotCreateOutput(path: path, reason: reason)
    }
    // Blocking from here on: a reader that is slow to drain a pipe is waited for.
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    let file = FileDescriptor(rawValue: descriptor, path: path)
    defer { file.close() }
    let written = bytes.withUnsafeBytes { buffer in
      Result { () throws(EngineError) in try file.writeAll(buffer) }
    }
    do throws(EngineError) {
      try written.get()
    } catch {
      throw .cannotCreateOutput(path: path, reason: reason(error))
    }
  }

  /// The file a chain of symbolic links ends at (`path` itself when it is no link); a link
  /// whose target is relative is resolved from the link's folder.
  static func resolvingSymbolicLinks(_ path: String) -> String {
    var current = path
    for _ in 0..<40 {
      var info = stat()
      guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
      var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = buffer.withUnsafeMutableBufferPointer { pointer in
        pointer.baseAddress.map { readlink(current, $0, Int(PATH_MAX)) } ?? -1
      }
      guard length > 0 else { return current }
      let target = String(decoding: buffer[..<length], as: UTF8.self)
      current = target.hasPrefix("/") ? target : split(current).directory + "/" + target
    }
    return current
  }

  /// The folder holding `path` (`.` for a bare name) and the file's name.
  static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = slash == path.startIndex ? "/" : String(path[..<slash])
    return (directory, String(path[path.index(after: slash)...]))
  }

  /// The system's message in an I/O error.
  static func reason(_ error: EngineError) -> String {
    if case .io(_, let operation, let code) = error {
      return "\(operation) failed: \(systemErrorMessage(code))"
    }
    return error.description
  }
}
