import Engine
import Events
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Durable writes: the library's batch import and single appends, each against the raw rate of
/// the same bytes written with `write` and made durable with `fdatasync` (what the library
/// calls on Linux) at the same points, on the same disk.
enum WriteBenchmarks {
  /// `import <source> <out> --chunk n [--limit n]`: the first `limit` events of `source`
  /// imported into a new log at `out` with one `importEvents` call, synced every `chunk`
  /// events (`--sync never`: not synced). Only the call is timed.
  static func importEvents(_ arguments: Arguments) throws {
    let source = try arguments.path(0)
    let output = try arguments.path(1)
    let chunk = arguments.int("--chunk") ?? 1000
    let events = try readEvents(source, limit: arguments.int("--limit") ?? .max)
    let writes = events.map { EventLog.StreamWrite(stream: $0.stream, events: [$0.event]) }
    let log = try freshLog(
      output, sync: arguments.options["--sync"] != "never", keysFrom: source)
    var summary: EventLog.ImportSummary?
    let seconds = try measure { summary = try log.importEvents(writes, chunkSize: chunk) }
    report([
      "events": summary?.appendedCount ?? 0, "bytes": fileSize(output), "seconds": seconds,
      "syncs": (writes.count + chunk - 1) / chunk,
    ])
  }

  /// `raw-write <source> <out> --chunk n [--limit n]`: the first `limit` lines of `source`
  /// written to a new file, `chunk` lines per `write` and one `fdatasync` after each.
  static func rawWrite(_ arguments: Arguments) throws {
    let lines = try readLines(try arguments.path(0), limit: arguments.int("--limit") ?? .max)
    try rawWrite(lines, to: try arguments.path(1), linesPerSync: arguments.int("--chunk") ?? 1000)
  }

  /// `append <source> <out> --count n`: the first `count` events of `source` appended to a
  /// new log one `append` call each, every call synced before it returns (the default policy;
  /// `--sync never`: not synced, what the library's work costs without the disk).
  static func append(_ arguments: Arguments) throws {
    let output = try arguments.path(1)
    let events = try readEvents(try arguments.path(0), limit: arguments.int("--count") ?? 2000)
    let log = try freshLog(
      output, sync: arguments.options["--sync"] != "never", keysFrom: try arguments.path(0))
    let seconds = try measure {
      for event in events { try log.append([event.event], to: event.stream) }
    }
    report([
      "events": events.count, "bytes": fileSize(output), "seconds": seconds,
      "syncs": events.count,
    ])
  }

  /// `raw-append <source> <out> --count n`: the first `count` lines of `source`, one `write`
  /// and one `fdatasync` each.
  static func rawAppend(_ arguments: Arguments) throws {
    let lines = try readLines(try arguments.path(0), limit: arguments.int("--count") ?? 2000)
    try rawWrite(lines, to: try arguments.path(1), linesPerSync: 1)
  }

  // MARK: Parts

  /// Events of a log, as an importer would offer them: stream, type, payload, meta and id.
  private static func readEvents(
    _ path: String, limit: Int
  ) throws -> [(stream: String, event: ProposedEvent)] {
    var events: [(String, ProposedEvent)] = []
    try LogReader(path: path).forEachEvent { line in
      let recorded = line.recordedEvent()
      events.append(
        (
          recorded.stream,
          ProposedEvent(
            id: recorded.id, type: recorded.type, schemaVersion: recorded.schemaVersion,
            data: recorded.data, metadata: recorded.metadata)
        ))
      return events.count < limit
    }
    return events
  }

  /// A new, empty log at `path` that syncs every append (the default configuration), or never
  /// (`--sync never`: what the work costs without the disk). The source's key store is copied
  /// beside it: the source's contact events are offered sealed, and must open under their keys.
  private static func freshLog(
    _ path: String, sync: Bool = true, keysFrom source: String
  ) throws -> EventLog {
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: path + ".keys")
    if FileManager.default.fileExists(atPath: source + ".keys") {
      try FileManager.default.copyItem(atPath: source + ".keys", toPath: path + ".keys")
    }
    return try EventLog(
      path: path, configuration: EventLog.Configuration(syncPolicy: sync ? .always : .never))
  }

  /// The first `limit` lines of a file, each with its `\n`.
  private static func readLines(_ path: String, limit: Int) throws -> [[UInt8]] {
    var lines: [[UInt8]] = []
    try LineSplit.forEachLine(path, limit: limit) { base, length in
      lines.append(Array(UnsafeBufferPointer(start: base, count: length + 1)))
    }
    return lines
  }

  private static func rawWrite(_ lines: [[UInt8]], to path: String, linesPerSync: Int) throws {
    try? FileManager.default.removeItem(atPath: path)
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0o644)
    guard descriptor >= 0 else { throw BenchError("cannot create '\(path)'") }
    defer { close(descriptor) }
    // The library makes a new log's directory entry durable once; so does this.
    syncDirectory(of: path)
    var buffer: [UInt8] = []
    var bytes = 0
    let seconds = try measure {
      for start in stride(from: 0, to: lines.count, by: linesPerSync) {
        buffer.removeAll(keepingCapacity: true)
        for line in lines[start..<min(start + linesPerSync, lines.count)] {
          buffer.append(contentsOf: line)
        }
        try buffer.withUnsafeBytes { raw in
          guard let base = raw.baseAddress else { return }
          var offset = 0
          while offset < raw.count {
            let written = write(descriptor, base + offset, raw.count - offset)
            guard written > 0 else { throw BenchError("write failed: errno \(errno)") }
            offset += written
          }
        }
        guard syncData(descriptor) == 0 else { throw BenchError("sync failed: errno \(errno)") }
        bytes += buffer.count
      }
    }
    report([
      "events": lines.count, "bytes": bytes, "seconds": seconds,
      "syncs": (lines.count + linesPerSync - 1) / linesPerSync,
    ])
  }

  /// What the library calls to make appended bytes durable.
  private static func syncData(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
      fcntl(descriptor, F_FULLFSYNC)
    #else
      fdatasync(descriptor)
    #endif
  }

  private static func syncDirectory(of path: String) {
    let directory = (path as NSString).deletingLastPathComponent
    let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    close(descriptor)
  }

  private static func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  }
}
