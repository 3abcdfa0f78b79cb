import Events
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Where bytes cut from the end of a log go: `<log>.quarantine/`, one file per cut, named
/// `<UTC time>-after-seq<N>-byte<O>.jsonl` (the last event kept, and the offset the cut bytes
/// started at). Recovery and `replay repair` never truncate a log before the bytes they cut
/// are in such a file and synced, so a cut can always be undone by hand (`cat` the file back
/// onto the log). Nothing reads these files; delete them once you have looked.
package enum Quarantine {
  /// One quarantined cut.
  public struct Entry: Sendable, Equatable {
    public var path: String
    public var byteCount: Int64
  }

  /// The quarantine folder of the log at `logPath`.
  public static func directory(forLog logPath: String) -> String {
    LogFiles(logPath: logPath).quarantinePath
  }

  /// The quarantined cuts beside the log, oldest first.
  public static func entries(forLog logPath: String) -> [Entry] {
    let directory = directory(forLog: logPath)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return []
    }
    return names.filter { $0.hasSuffix(".jsonl") }.sorted().map { name in
      let path = directory + "/" + name
      return Entry(path: path, byteCount: FileDescriptor.status(atPath: path)?.size ?? 0)
    }
  }

  /// Copies `range` of `file` (the log at `logPath`) into a new quarantine file, synced, and
  /// returns its path. The log itself is not changed.
  /// - Throws: `EngineError.io` when the copy cannot be made durable; then nothing may be cut.
  static func save(
    _ range: Range<Int64>, of file: FileDescriptor, logPath: String, afterSequence: Int64
  ) throws(EngineError) -> String {
    let directory = directory(forLog: logPath)
    if PathOperations.makeDirectory(directory, permissions: 0o755) == 0 {
      FileDescriptor.synchronizeDirectory(containing: directory)
    } else if errno != EEXIST || FileDescriptor.status(atPath: directory)?.isDirectory != true {
      throw .io(path: directory, operation: "create the quarantine folder", code: errno)
    }
    let stamp = Timestamp(Date()).description.filter { $0.isNumber || $0 == "T" || $0 == "Z" }
    let base = directory + "/\(stamp)-after-seq\(afterSequence)-byte\(range.lowerBound)"
    var path = base + ".jsonl"
    var descriptor = PathOperations.createExclusive(path, permissions: 0o644)
    var attempt = 1
    while descriptor < 0, errno == EEXIST, attempt < 100 {
      attempt += 1
      path = base + "-\(attempt).jsonl"
      descriptor = PathOperations.createExclusive(path, permissions: 0o644)
    }
    guard descriptor >= 0 else { throw .io(path: path, operation: "create", code: errno) }
    let copy = FileDescriptor(rawValue: descriptor, path: path)
    defer { copy.close() }
    do throws(EngineError) {
      var offset = range.lowerBound
      while offset < range.upperBound {
        let count = Int(min(Int64(4 << 20), range.upperBound - offset))
        let block = try file.readFully(count: count, at: offset)
        guard block.count == count else {
          throw .io(path: file.path, operation: "read", code: EIO)
        }
        let written = block.withUnsafeBytes { bytes in
          Result { () throws(EngineError) in try copy.writeAll(bytes) }
        }
        try written.get()
        offset += Int64(count)
      }
      try copy.synchronize()
    } catch {
      PathOperations.unlink(path)
      throw error
    }
    FileDescriptor.synchronizeDirectory(containing: path)
    return path
  }
}
