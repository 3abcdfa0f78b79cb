import Dispatch
import Events
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// An events file, as `replay append --file` reads it: JSON lines, each one event to append,
/// `{"stream","type","data","meta"?,"id"?,"expectedVersion"?,"schema"?}`; blank lines are
/// skipped.
///
/// Each line is read by one decoder (`decodeLine`) whose quick steps are the first step of each
/// member's read, not a second reader: the same problem gets the same message whatever the
/// line's whitespace.
package enum EventsFile {
  /// Every line of an events file read and checked: the writes in line order, and every invalid
  /// line's problem in line order (each an `EngineError.invalidEvent` naming `name:<line>`).
  ///
  /// A large file is cut at line ends into one part per core (at most 8), and the parts are read
  /// at once: reading and checking the lines took about half of `append --file`, on one core.
  /// - Parameters:
  ///   - bytes: the file's content.
  ///   - name: the file's name for messages (`events.jsonl`, `<stdin>`).
  /// - Complexity: O(n) in the file's size.
  public static func decode(
    _ bytes: [UInt8], name: String
  ) -> (writes: [EventLog.StreamWrite], problems: [EngineError]) {
    let partCount =
      bytes.count >= 1 << 20 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
    // Each part starts just after a newline; its first line's number counts the ones before.
    var cuts: [(range: Range<Int>, firstLine: Int)] = []
    var start = 0
    var firstLine = 1
    for part in 1...partCount {
      var end = part == partCount ? bytes.count : max(bytes.count * part / partCount, start + 1)
      while end < bytes.count, bytes[end - 1] != 0x0A { end += 1 }
      cuts.append((start..<end, firstLine))
      guard end < bytes.count else { break }
      firstLine += newlineCount(bytes, start..<end)
      start = end
    }
    let parts = cuts
    typealias Part = (writes: [EventLog.StreamWrite], problems: [EngineError])
    let results = Mutex([Part?](repeating: nil, count: parts.count))
    DispatchQueue.concurrentPerform(iterations: parts.count) { index in
      let (range, firstLine) = parts[index]
      let part = decodePart(bytes, range, firstLine: firstLine, name: name)
      results.withLock { $0[index] = part }
    }
    var writes: [EventLog.StreamWrite] = []
    var problems: [EngineError] = []
    for part in results.withLock({ $0 }) {
      guard let part else { continue }
      writes.append(contentsOf: part.writes)
      problems.append(contentsOf: part.problems)
    }
    return (writes, problems)
  }

  /// The lines of `bytes[range]`, the first numbered `firstLine`.
  static func decodePart(
    _ bytes: [UInt8], _ range: Range<Int>, firstLine: Int, name: String
  ) -> (writes: [EventLog.StreamWrite], problems: [EngineError]) {
    var writes: [EventLog.StreamWrite] = []
    var problems: [EngineError] = []
    var lineNumber = firstLine - 1
    // Lines found with `memchr` (`split` went a byte at a time through a closure, about 2 000
    // instructions a line); the last runs to the part's end, empty or not.
    var lineStart = range.lowerBound
    while lineStart <= range.upperBound {
      let newline = nextNewline(in: bytes, from: lineStart, to: range.upperBound)
      var contentEnd = newline
      let contentStart = lineStart
      lineStart = newline + 1
      lineNumber += 1
      if contentEnd > contentStart, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
      if bytes[contentStart..<contentEnd].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      // The place is named only in errors, so made only for them.
      let number = lineNumber
      let result = bytes.withUnsafeBytes { raw in
        Result { () throws(EngineError) in
          try decodeLine(
            raw: UnsafeRawBufferPointer(rebasing: raw[contentStart..<contentEnd]),
            location: "\(name):\(number)")
        }
      }
      switch result {
      case .success(let write): writes.append(write)
      case .failure(let problem): problems.append(problem)
      }
    }
    return (writes, problems)
  }

  /// Where the first newline in `bytes[start..<end]` is, found with `memchr`; `end` when there
  /// is none.
  static func nextNewline(in bytes: [UInt8], from start: Int, to end: Int) -> Int {
    bytes.withUnsafeBytes { raw in
      guard start < end, let base = raw.baseAddress,
        let found = memchr(base + start, 0x0A, end - start)
      else { return end }
      return base.distance(to: UnsafeRawPointer(found))
    }
  }

  /// How many newlines `bytes[range]` holds.
  static func newlineCount(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
    var count = 0
    var position = range.lowerBound
    while position < range.upperBound {
      let newline = nextNewline(in: bytes, from: position, to: range.upperBound)
      guard newline < range.upperBound else { break }
      count += 1
      position = newline + 1
    }
    return count
  }

}
