@_spi(Tables) import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// A thin, typed wrapper over an open file descriptor and the system calls the log needs.
///
/// Every failing call throws `EngineError.io` naming the operation, the path and the system's
/// message, so callers never deal with `errno`.
package struct FileDescriptor: Sendable {
  let rawValue: Int32
  let path: String

  /// How to open a file.
  enum Mode {
    case readOnly
    /// Read and append; created (mode 0644) when missing.
    case appendCreating
    /// Read and append; `EngineError.fileNotFound` when missing (nothing is created).
    case appendExisting
  }

  /// Opens `path`, which must be a regular file (or, for `.appendCreating`, missing).
  ///
  /// A FIFO, a device, a socket or a directory is refused at once: the descriptor is opened
  /// non-blocking, so a FIFO with no writer cannot hang the caller, and its kind is checked
  /// before a byte is read or written.
  /// - Throws: `EngineError.fileNotFound` when it does not exist (`.readOnly`, `.appendExisting`),
  ///   `.notALog` when it is not a regular file, `EngineError.io` for anything else.
  static func open(_ path: String, _ mode: Mode) throws(EngineError) -> FileDescriptor {
    let flags: Int32
    switch mode {
    case .readOnly: flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
    case .appendCreating: flags = O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK
    case .appendExisting: flags = O_RDWR | O_APPEND | O_CLOEXEC | O_NONBLOCK
    }
    let creates =
      mode == .appendCreating && StorageRecorder.isRecording && status(atPath: path) == nil
    let descriptor = retryingOnInterrupt { systemOpen(path, flags, 0o644) }
    if _slowPath(creates), descriptor >= 0, let file = StorageRecorder.identity(of: descriptor) {
      StorageRecorder.record(.create(path: path, file: file))
    }
    guard descriptor >= 0 else {
      let code = errno
      if code == ENOENT { throw .fileNotFound(path: path) }
      if code == EISDIR { throw .notALog(path: path, problem: "it is a directory") }
      throw .io(path: path, operation: "open", code: code)
    }
    let file = FileDescriptor(rawValue: descriptor, path: path)
    let kind: FileKind
    do throws(EngineError) {
      kind = try file.status().kind
    } catch {
      file.close()
      throw error
    }
    guard kind == .regular else {
      file.close()
      throw .notALog(path: path, problem: "it is \(kind.description), not a regular file")
    }
    // /proc and /sys files say they are empty regular files but have content.
    if (try? file.status().size) == 0, (try? file.readFully(count: 1, at: 0).isEmpty) == false {
      file.close()
      throw .notALog(path: path, problem: "it claims to be empty but has content (a /proc file?)")
    }
    return file
  }

  package func close() {
    _ = systemClose(rawValue)
  }

  /// File size and identity.
  struct Status: Equatable {
    var size: Int64
    var device: UInt64
    var inode: UInt64
    var kind: FileKind

    var isDirectory: Bool { kind == .directory }
  }

  /// What sort of file a path names.
  enum FileKind: Equatable, CustomStringConvertible {
    case regular, directory, fifo, characterDevice, blockDevice, socket, symbolicLink, other

    init(mode: mode_t) {
      switch mode & S_IFMT {
      case S_IFREG: self = .regular
      case S_IFDIR: self = .directory
      case S_IFIFO: self = .fifo
      case S_IFCHR: self = .characterDevice
      case S_IFBLK: self = .blockDevice
      case S_IFSOCK: self = .socket
      case S_IFLNK: self = .symbolicLink
      default: self = .other
      }
    }

    var description: String {
      switch self {
      case .regular: "a regular file"
      case .directory: "a directory"
      case .fifo: "a FIFO (named pipe)"
      case .characterDevice: "a character device"
      case .blockDevice: "a block device"
      case .socket: "a socket"
      case .symbolicLink: "a symbolic link"
      case .other: "a special file"
      }
    }
  }

  func status() throws(EngineError) -> Status {
    var info = stat()
    guard fstat(rawValue, &info) == 0 else {
      throw .io(path: path, operation: "stat", code: errno)
    }
    return Status(info)
  }

  /// Status of whatever is at `path` now (which may differ from an open descriptor's file).
  static func status(atPath path: String) -> Status? {
    path.utf8CString.withUnsafeBufferPointer { status(atPath: $0) }
  }

  /// `status(atPath:)` of a path already made a C string.
  static func status(atPath path: UnsafeBufferPointer<CChar>) -> Status? {
    var info = stat()
    guard let base = path.baseAddress, stat(base, &info) == 0 else { return nil }
    return Status(info)
  }

  /// Reads up to `count` bytes at `offset` into `buffer`; returns how many were read (0 at end).
  func read(
    into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64
  ) throws(EngineError) -> Int {
    let result = retryingOnInterrupt { pread(rawValue, buffer, count, off_t(offset)) }
    guard result >= 0 else { throw .io(path: path, operation: "read", code: errno) }
    return result
  }

  /// Reads exactly `count` bytes at `offset`, or fewer only at the end of the file.
  func readFully(count: Int, at offset: Int64) throws(EngineError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let filled = try bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(EngineError) in try fill(buffer, at: offset) }
    }.get()
    bytes.removeLast(count - filled)
    return bytes
  }

  /// Asks the system to start reading `length` bytes at each of `offsets` (ascending) into its
  /// cache, and returns at once: lines scattered over a large log then come from the disk
  /// together, not one `pread` after another. Offsets within 64 KiB of each other make one
  /// range. Only advice: errors are ignored, and off Linux it does nothing.
  func prefetch(_ offsets: some Sequence<Int64>, length: Int64) {
    #if os(Linux)
      var range: (start: Int64, end: Int64)?
      // Offsets come from the index: one that is out of range is skipped, not overflowed.
      for offset in offsets where offset >= 0 && offset <= Int64.max / 2 {
        if let (start, end) = range, offset >= start, offset <= end + 65_536 {
          range = (start, max(end, offset + length))
          continue
        }
        if let (start, end) = range {
          _ = posix_fadvise(rawValue, off_t(start), off_t(end - start), POSIX_FADV_WILLNEED)
        }
        range = (offset, offset + length)
      }
      if let (start, end) = range {
        _ = posix_fadvise(rawValue, off_t(start), off_t(end - start), POSIX_FADV_WILLNEED)
      }
    #endif
  }

  /// Reads into all of `buffer` from `offset`, stopping early only at the end of the file.
  /// - Returns: how many bytes were read.
  private func fill(
    _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(EngineError) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var filled = 0
    while filled < buffer.count {
      let got = try read(
        into: base + filled, count: buffer.count - filled, at: offset + Int64(filled))
      if got == 0 { break }
      filled += got
    }
    return filled
  }

  /// Every byte of the file at `path`, read straight into the array: one `pread` loop into a
  /// buffer advised for huge pages (`HugePages`), no intermediate `Data` and copy. For a large
  /// checkpoint or key store, the copy and its page faults cost as much as decoding it.
  /// - Throws: as `open`, and `EngineError.io` when a read fails or the file shrinks meanwhile.
  static func contents(ofFileAt path: String) throws(EngineError) -> [UInt8] {
    let file = try FileDescriptor.open(path, .readOnly)
    defer { file.close() }
    let size = try file.status().size
    guard size >= 0, size < Int64(Int.max) else {
      throw .io(path: path, operation: "read", code: EFBIG)
    }
    var failure: EngineError?
    let bytes = [UInt8](unsafeUninitializedCapacity: Int(size)) { buffer, initialized in
      let raw = UnsafeMutableRawBufferPointer(buffer)
      HugePages.advise(raw)
      do throws(EngineError) {
        initialized = try file.fill(raw, at: 0)
        if initialized < buffer.count {
          failure = .io(path: path, operation: "read (the file shrank)", code: EIO)
        }
      } catch {
        initialized = 0
        failure = error
      }
    }
    if let failure { throw failure }
    return bytes
  }

  /// Writes every byte of `bytes` (at the end: the file is opened for appending).
  func writeAll(_ bytes: UnsafeRawBufferPointer) throws(EngineError) {
    if _slowPath(StorageRecorder.isRecording) { return try writeAllRecorded(bytes) }
    var written = 0
    try write(bytes, counting: &written)
  }

  /// Writes `bytes` from `written` on, adding to `written` as parts land.
  @inline(__always)
  private func write(
    _ bytes: UnsafeRawBufferPointer, counting written: inout Int
  ) throws(EngineError) {
    guard let base = bytes.baseAddress else { return }
    while written < bytes.count {
      let count = retryingOnInterrupt {
        systemWrite(rawValue, base + written, bytes.count - written)
      }
      guard count > 0 else {
        throw .io(path: path, operation: "write", code: count < 0 ? errno : EIO)
      }
      written += count
    }
  }

  /// `writeAll` while a folder is recorded: the bytes that landed, and where, are reported
  /// (also when a later part fails).
  @inline(never)
  private func writeAllRecorded(_ bytes: UnsafeRawBufferPointer) throws(EngineError) {
    let file = StorageRecorder.identity(of: rawValue)
    let offset = StorageRecorder.size(of: rawValue)
    var written = 0
    defer {
      if let file, written > 0 {
        let landed = Array(UnsafeRawBufferPointer(rebasing: bytes[..<written]))
        StorageRecorder.record(.write(path: path, file: file, offset: offset, bytes: landed))
      }
    }
    try write(bytes, counting: &written)
  }

  /// Forces written data (and the size, which reading it back needs) to stable storage.
  ///
  /// Linux: `fdatasync`. Apple platforms: `fcntl(F_FULLFSYNC)`, since their `fsync` stops at the
  /// drive's cache.
  func synchronize() throws(EngineError) {
    try synchronizeData()
    if _slowPath(StorageRecorder.isRecording), let file = StorageRecorder.identity(of: rawValue) {
      StorageRecorder.record(.synchronize(path: path, file: file))
    }
  }

  @inline(__always)
  private func synchronizeData() throws(EngineError) {
    #if canImport(Darwin)
      if fcntl(rawValue, F_FULLFSYNC) == 0 { return }
      guard fsync(rawValue) == 0 else { throw .io(path: path, operation: "fsync", code: errno) }
    #else
      guard retryingOnInterrupt({ fdatasync(rawValue) }) == 0 else {
        throw .io(path: path, operation: "fdatasync", code: errno)
      }
    #endif
  }

  /// Cuts the file to `size` bytes.
  func truncate(to size: Int64) throws(EngineError) {
    guard retryingOnInterrupt({ ftruncate(rawValue, off_t(size)) }) == 0 else {
      throw .io(path: path, operation: "truncate", code: errno)
    }
    if _slowPath(StorageRecorder.isRecording), let file = StorageRecorder.identity(of: rawValue) {
      StorageRecorder.record(.truncate(path: path, file: file, size: size))
    }
  }

  /// Tries to take the exclusive advisory lock without waiting; returns whether it did.
  func tryLockExclusive() throws(EngineError) -> Bool {
    if flock(rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
    let code = errno
    if code == EWOULDBLOCK || code == EINTR { return false }
    throw .io(path: path, operation: "flock", code: code)
  }

  /// Takes the exclusive advisory lock, retrying with growing pauses for up to `timeout`
  /// seconds; returns whether it did.
  func lockExclusive(waitingUpTo timeout: Double) throws(EngineError) -> Bool {
    if try tryLockExclusive() { return true }
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int64(timeout * 1000))
    var pause = Duration.microseconds(200)
    while clock.now < deadline {
      let (seconds, attoseconds) = pause.components
      var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
      _ = nanosleep(&request, nil)
      if try tryLockExclusive() { return true }
      pause = min(pause * 2, .milliseconds(50))
    }
    return false
  }

  /// Takes the shared advisory lock, waiting as long as an exclusive holder keeps it (a
  /// writer holds it only while it writes and syncs).
  func lockShared() throws(EngineError) {
    while flock(rawValue, LOCK_SH) != 0 {
      let code = errno
      if code != EINTR { throw .io(path: path, operation: "flock", code: code) }
    }
  }

  func unlock() {
    _ = flock(rawValue, LOCK_UN)
  }

  /// Makes a newly created directory entry durable by syncing the directory that holds it.
  static func synchronizeDirectory(containing path: String) {
    let directory: String
    if let slash = path.lastIndex(of: "/") {
      directory = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
      directory = "."
    }
    _ = PathOperations.synchronize(directory: directory)
  }
}

extension FileDescriptor.Status {
  init(_ info: stat) {
    size = Int64(info.st_size)
    device = UInt64(truncatingIfNeeded: info.st_dev)
    inode = UInt64(truncatingIfNeeded: info.st_ino)
    kind = FileDescriptor.FileKind(mode: info.st_mode)
  }
}

/// The system's message for an `errno` value.
func systemErrorMessage(_ code: Int32) -> String {
  guard let message = strerror(code) else { return "error \(code)" }
  return String(cString: message)
}

@inline(__always)
private func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
  while true {
    let result = call()
    if result == -1, errno == EINTR { continue }
    return result
  }
}

// Unambiguous names for the C functions that our methods shadow.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}

private func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, pointer, count)
}
