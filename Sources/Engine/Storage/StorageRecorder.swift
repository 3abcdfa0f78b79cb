import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// A file as the file system knows it (device and inode), whatever names it has.
package struct FileIdentity: Hashable, Sendable, CustomStringConvertible {
  package var device: UInt64
  package var inode: UInt64

  package var description: String { "\(device):\(inode)" }
}

/// One change to the file system, as `FileDescriptor` and `PathOperations` made it.
package enum StorageOperation: Sendable, Equatable, CustomStringConvertible {
  /// A new, empty file `file` appeared as `path` (`open` with `O_CREAT`).
  case create(path: String, file: FileIdentity)
  /// `bytes` written at `offset` of `file` (opened as `path`).
  case write(path: String, file: FileIdentity, offset: Int64, bytes: [UInt8])
  /// `fsync`, `fdatasync` or `F_FULLFSYNC` of `file`: its data is on stable storage.
  case synchronize(path: String, file: FileIdentity)
  /// `ftruncate` of `file` to `size` bytes.
  case truncate(path: String, file: FileIdentity, size: Int64)
  /// `rename(from, to)`.
  case rename(from: String, to: String)
  /// `unlink(path)`.
  case unlink(path: String)
  /// `mkdir(path)`.
  case makeDirectory(path: String)
  /// `rmdir(path)`.
  case removeDirectory(path: String)
  /// `fsync` of the folder `path`: its entries (new, renamed, removed) are on stable storage.
  case synchronizeDirectory(path: String)

  /// The path the operation names first.
  package var path: String {
    switch self {
    case .create(let path, _), .write(let path, _, _, _), .synchronize(let path, _),
      .truncate(let path, _, _), .unlink(let path), .makeDirectory(let path),
      .removeDirectory(let path), .synchronizeDirectory(let path):
      path
    case .rename(let from, _): from
    }
  }

  package var description: String {
    switch self {
    case .create(let path, let file): "create \(path) (\(file))"
    case .write(let path, _, let offset, let bytes):
      "write \(bytes.count) bytes at \(offset) of \(path)"
    case .synchronize(let path, _): "fsync \(path)"
    case .truncate(let path, _, let size): "truncate \(path) to \(size)"
    case .rename(let from, let to): "rename \(from) -> \(to)"
    case .unlink(let path): "unlink \(path)"
    case .makeDirectory(let path): "mkdir \(path)"
    case .removeDirectory(let path): "rmdir \(path)"
    case .synchronizeDirectory(let path): "fsync folder \(path)"
    }
  }
}

/// The operations made under one folder while it is recorded (power-loss tests replay them).
package final class StorageRecording: Sendable {
  /// The folder: operations on paths inside it are recorded.
  package let root: String
  private let recorded = Mutex<[StorageOperation]>([])

  init(root: String) {
    self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
  }

  /// Every operation so far, in the order they were made.
  package var operations: [StorageOperation] { recorded.withLock { $0 } }

  /// How many operations so far.
  package var count: Int { recorded.withLock { $0.count } }

  /// Stops recording; the operations stay readable.
  package func stop() {
    StorageRecorder.stop(self)
  }

  func covers(_ path: String) -> Bool {
    path == root || (path.hasPrefix(root) && path.utf8.dropFirst(root.utf8.count).first == 0x2F)
  }

  func append(_ operation: StorageOperation) {
    recorded.withLock { $0.append(operation) }
  }
}

/// Where every change `FileDescriptor` and `PathOperations` make is reported while a test
/// records a folder. Off (no recording), each reporting call site costs one load and one
/// well-predicted branch; the recording work runs only behind it.
package enum StorageRecorder {
  /// How many recordings run: the one word the file layer reads on each change.
  private static let activeCount = Atomic<Int>(0)
  private static let active = Mutex<[StorageRecording]>([])

  /// Whether any folder is being recorded.
  @inline(__always)
  static var isRecording: Bool { activeCount.load(ordering: .relaxed) != 0 }

  /// Starts recording every change under `root` (an absolute path), from any thread.
  package static func start(under root: String) -> StorageRecording {
    let recording = StorageRecording(root: root)
    active.withLock { recordings in
      recordings.append(recording)
      activeCount.store(recordings.count, ordering: .relaxed)
    }
    return recording
  }

  static func stop(_ recording: StorageRecording) {
    active.withLock { recordings in
      recordings.removeAll { $0 === recording }
      activeCount.store(recordings.count, ordering: .relaxed)
    }
  }

  /// Reports `operation` to every recording whose folder holds its path; `errno` is kept as
  /// the system call left it.
  static func record(_ operation: StorageOperation, alsoPath second: String? = nil) {
    let code = errno
    defer { errno = code }
    let recordings = active.withLock { $0 }
    for recording in recordings
    where recording.covers(operation.path) || second.map(recording.covers) == true {
      recording.append(operation)
    }
  }

  /// The identity of the file open as `descriptor`, when it can be read.
  static func identity(of descriptor: Int32) -> FileIdentity? {
    let code = errno
    defer { errno = code }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    return FileIdentity(
      device: UInt64(truncatingIfNeeded: info.st_dev),
      inode: UInt64(truncatingIfNeeded: info.st_ino))
  }

  /// The size of the file open as `descriptor` (where an appending write lands).
  static func size(of descriptor: Int32) -> Int64 {
    let code = errno
    defer { errno = code }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return -1 }
    return Int64(info.st_size)
  }
}
