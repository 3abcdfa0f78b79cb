import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The floor: read the file in 4 MiB pieces (as the engine's reader does) and find every line
/// end with `memchr`. Nothing is parsed.
enum LineSplit {
  static func run(_ arguments: Arguments) throws {
    let path = try arguments.path(0)
    var lines = 0
    var bytes = 0
    let seconds = try measure {
      try forEachLine(path) { _, _ in lines += 1 }
      bytes = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
    }
    report(["events": lines, "bytes": bytes, "seconds": seconds])
  }

  /// Calls `body` with every complete line (without its `\n`), reading `readSize` bytes at a time.
  static func forEachLine(
    _ path: String, readSize: Int = 4 << 20, limit: Int = .max,
    _ body: (UnsafePointer<UInt8>, Int) throws -> Void
  ) throws {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw BenchError("cannot open '\(path)'") }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: readSize)
    var carried = 0
    var count = 0
    try buffer.withUnsafeMutableBytes { raw in
      guard let address = raw.baseAddress else { return }
      let base = address.assumingMemoryBound(to: UInt8.self)
      while count < limit {
        if carried == readSize { throw BenchError("a line longer than \(readSize) bytes") }
        let got = read(descriptor, base + carried, readSize - carried)
        guard got > 0 else { break }
        let end = carried + got
        var start = 0
        while count < limit,
          let found = memchr(base + start, 0x0A, end - start)
        {
          let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
          try body(UnsafePointer(base + start), newline - start)
          count += 1
          start = newline + 1
        }
        carried = end - start
        if carried > 0 { memmove(base, base + start, carried) }
      }
    }
  }
}
