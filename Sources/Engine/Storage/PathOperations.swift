import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The system calls that change a folder's entries — create, rename, unlink, mkdir, rmdir —
/// and the folder fsync that makes them durable. With `FileDescriptor` (which changes a file's
/// bytes), the one place the engine changes files, so that a power-loss test can record every
/// change (`StorageRecorder`). Each call has its C function's meaning: it returns what the
/// function returns and leaves `errno` as the function left it.
enum PathOperations {
  /// `open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)`: a new file, or -1.
  static func createExclusive(_ path: String, permissions: mode_t) -> Int32 {
    let descriptor = systemOpen(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
    if _slowPath(StorageRecorder.isRecording), descriptor >= 0,
      let file = StorageRecorder.identity(of: descriptor)
    {
      StorageRecorder.record(.create(path: path, file: file))
    }
    return descriptor
  }

  /// `open(path, flags)` of a file that exists (no `O_CREAT`): opening changes nothing.
  static func openExisting(_ path: String, flags: Int32) -> Int32 {
    precondition(flags & O_CREAT == 0, "openExisting never creates: use createExclusive")
    return systemOpen(path, flags, 0)
  }

  /// `rename(source, destination)`.
  static func rename(_ source: String, _ destination: String) -> Int32 {
    let result = systemRename(source, destination)
    if _slowPath(StorageRecorder.isRecording), result == 0 {
      StorageRecorder.record(.rename(from: source, to: destination), alsoPath: destination)
    }
    return result
  }

  /// `unlink(path)`.
  @discardableResult
  static func unlink(_ path: String) -> Int32 {
    let result = systemUnlink(path)
    if _slowPath(StorageRecorder.isRecording), result == 0 {
      StorageRecorder.record(.unlink(path: path))
    }
    return result
  }

  /// `mkdir(path, permissions)`.
  static func makeDirectory(_ path: String, permissions: mode_t) -> Int32 {
    let result = systemMakeDirectory(path, permissions)
    if _slowPath(StorageRecorder.isRecording), result == 0 {
      StorageRecorder.record(.makeDirectory(path: path))
    }
    return result
  }

  /// Removes the folder `path` and everything in it (files, then folders, deepest first).
  /// - Throws: `EngineError.io` naming the first entry that could not be removed.
  static func removeTree(_ path: String) throws(EngineError) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    for name in names {
      let entry = path + "/" + name
      if FileDescriptor.status(atPath: entry)?.isDirectory == true {
        try removeTree(entry)
      } else if unlink(entry) != 0, errno != ENOENT {
        throw .io(path: entry, operation: "unlink", code: errno)
      }
    }
    guard systemRemoveDirectory(path) == 0 || errno == ENOENT else {
      throw .io(path: path, operation: "rmdir", code: errno)
    }
    if _slowPath(StorageRecorder.isRecording) {
      StorageRecorder.record(.removeDirectory(path: path))
    }
  }

  /// `fsync` of the folder `directory`, so that its new entries, renames and unlinks survive a
  /// power loss: 0, or -1 with `errno` (from `open` or `fsync`).
  static func synchronize(directory: String) -> Int32 {
    let descriptor = systemOpen(directory, O_RDONLY | O_CLOEXEC, 0)
    guard descriptor >= 0 else { return -1 }
    let result = fsync(descriptor)
    let code = errno
    _ = close(descriptor)
    errno = code
    if _slowPath(StorageRecorder.isRecording), result == 0 {
      StorageRecorder.record(.synchronizeDirectory(path: directory))
    }
    return result
  }
}

// Unambiguous names for the C functions that the methods above shadow.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}

private func systemRename(_ source: String, _ destination: String) -> Int32 {
  rename(source, destination)
}

private func systemUnlink(_ path: String) -> Int32 {
  unlink(path)
}

private func systemMakeDirectory(_ path: String, _ permissions: mode_t) -> Int32 {
  mkdir(path, permissions)
}

private func systemRemoveDirectory(_ path: String) -> Int32 {
  rmdir(path)
}
