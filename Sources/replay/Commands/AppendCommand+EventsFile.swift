import Engine
@_spi(Tables) import Events
import Foundation
import Synchronization

// MARK: An events file's lines (`replay append --file`)

extension AppendCommand {
  /// Every line of an events file parsed and checked: the writes in line order, and every
  /// invalid line's problem in line order (blank lines are skipped).
  ///
  /// A large file is cut at line ends into one part per core, and the parts are parsed at
  /// once: parsing and checking the lines took about half of `append --file`, on one core.
  /// - Throws: only what is not an input problem (those are returned).
  static func parseLines(_ bytes: [UInt8], name: String) throws -> (
    writes: [EventLog.StreamWrite], problems: [String]
  ) {
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
    let results = Mutex(
      [Result<(writes: [EventLog.StreamWrite], problems: [String]), any Error>?](
        repeating: nil, count: parts.count))
    DispatchQueue.concurrentPerform(iterations: parts.count) { index in
      let (range, firstLine) = parts[index]
      let result = Result { () throws -> (writes: [EventLog.StreamWrite], problems: [String]) in
        var writes: [EventLog.StreamWrite] = []
        var problems: [String] = []
        var lineNumber = firstLine - 1
        // Lines found with `memchr` (`split` went a byte at a time through a closure, about
        // 2 000 instructions a line); the last runs to the part's end, empty or not.
        var lineStart = range.lowerBound
        while lineStart <= range.upperBound {
          let newline = nextNewline(in: bytes, from: lineStart, to: range.upperBound)
          let line = bytes[lineStart..<newline]
          lineStart = newline + 1
          lineNumber += 1
          let content = line.last == 0x0D ? line.dropLast() : line
          if content.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
          do {
            // The place is named only in errors, so made only for them.
            let number = lineNumber
            writes.append(try parseEventLine(content, location: "\(name):\(number)"))
          } catch let error as any CLIError {
            problems.append(error.message)
          }
        }
        return (writes, problems)
      }
      results.withLock { $0[index] = result }
    }
    var writes: [EventLog.StreamWrite] = []
    var problems: [String] = []
    for result in results.withLock({ $0 }) {
      guard let part = try result?.get() else { continue }
      writes.append(contentsOf: part.writes)
      problems.append(contentsOf: part.problems)
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

  /// One line of an events file: `{"stream","type","data","meta"?,"id"?,"expectedVersion"?}`.
  ///
  /// The common shape (compact `data` without escapes, strings without escapes) is read in
  /// place by `parseCompactEventLine`; anything else, and every line it cannot take, goes
  /// through the general JSON reader below, which also words every error.
  static func parseEventLine(
    _ bytes: some Collection<UInt8>, location: @autoclosure () -> String
  ) throws
    -> EventLog.StreamWrite
  {
    let quick = bytes.withContiguousStorageIfAvailable { buffer in
      parseCompactEventLine(UnsafeRawBufferPointer(buffer))
    }
    if case .some(.some(let parsed)) = quick {
      try Vocabulary.check(parsed.events[0], stream: parsed.stream, location: location())
      return parsed
    }
    return try parseGeneralEventLine(bytes, location: location())
  }

  /// A line of an events file through the general JSON reader.
  static func parseGeneralEventLine(
    _ bytes: some Collection<UInt8>, location: @autoclosure () -> String
  ) throws
    -> EventLog.StreamWrite
  {
    let value: JSONValue
    do {
      value = try JSONValue.parse(bytes)
    } catch {
      throw InputError.invalid("\(location()): not valid JSON: \(error)")
    }
    guard case .object(let object) = value else {
      throw InputError.invalid("\(location()): expected an object, found \(value.kindDescription)")
    }
    let allowed = ["stream", "type", "data", "meta", "id", "expectedVersion", "schema"]
    for key in object.keys where !allowed.contains(key) {
      throw InputError.invalid(
        "\(location()): unknown member '\(key)' (expected \(allowed.map { "'\($0)'" }.joined(separator: ", ")))"
      )
    }
    func requiredString(_ key: String) throws -> String {
      guard let member = object[key] else {
        throw InputError.invalid("\(location()): missing '\(key)'")
      }
      guard let text = member.stringValue else {
        throw InputError.invalid(
          "\(location()): '\(key)' must be a string, found \(member.kindDescription)")
      }
      return text
    }
    let stream = try requiredString("stream")
    let type = try requiredString("type")
    guard let data = object["data"] else {
      throw InputError.invalid("\(location()): missing 'data'")
    }
    guard case .object = data else {
      throw InputError.invalid(
        "\(location()): 'data' must be an object, found \(data.kindDescription)")
    }
    var id: EventID?
    if let member = object["id"] {
      guard let text = member.stringValue, let parsed = EventID(text) else {
        throw InputError.invalid(
          "\(location()): 'id' must be a UUID string, found \(member.snippet)")
      }
      id = parsed
    }
    var expectedVersion = ExpectedVersion.any
    if let member = object["expectedVersion"] {
      let parsed: ExpectedVersion?
      switch member {
      case .string(let text): parsed = ExpectedVersion(text)
      case .number:
        parsed = member.int64Value.flatMap { $0 >= 0 ? ExpectedVersion.exactly($0) : nil }
      default: parsed = nil
      }
      guard let parsed else {
        throw InputError.invalid(
          "\(location()): 'expectedVersion' must be a whole number, \"no-stream\" or \"any\", found \(member.snippet)"
        )
      }
      expectedVersion = parsed
    }
    var schemaVersion = 1
    if let member = object["schema"] {
      guard let number = member.int64Value, number >= 1, number <= Int64(Int32.max) else {
        throw InputError.invalid(
          "\(location()): 'schema' must be a whole number ≥ 1, found \(member.snippet)")
      }
      schemaVersion = Int(number)
    }
    var metadata = EventMetadata()
    if let member = object["meta"] {
      guard case .object(let meta) = member else {
        throw InputError.invalid(
          "\(location()): 'meta' must be an object, found \(member.kindDescription)")
      }
      for entry in meta.members {
        guard let text = entry.value.stringValue else {
          throw InputError.invalid(
            "\(location()): 'meta.\(entry.key)' must be a string, found \(entry.value.kindDescription)"
          )
        }
        switch entry.key {
        case "actor": metadata.actor = text
        case "reason": metadata.reason = text
        case "correlation": metadata.correlation = text
        case "causation": metadata.causation = text
        default:
          throw InputError.invalid(
            "\(location()): unknown 'meta' member '\(entry.key)' (expected 'actor', 'reason', 'correlation' or 'causation')"
          )
        }
      }
    }
    let event = ProposedEvent(
      id: id, type: type, schemaVersion: schemaVersion, data: data.compactBytes, metadata: metadata)
    try Vocabulary.check(event, stream: stream, location: location())
    return EventLog.StreamWrite(stream: stream, expectedVersion: expectedVersion, events: [event])
  }
}

extension AppendCommand {
  /// The members an events file's line may have, as bits of a set.
  private enum Member: Int {
    case stream, type, data, meta, id, expectedVersion, schema
  }

  /// The line read in place, when it has the common shape: every member known and given once,
  /// strings without escapes and valid UTF-8, `data` an object written compactly with no
  /// escape (so its bytes are already what the log stores), `meta` an object of known string
  /// members. `nil` for anything else: the general reader then decides (and explains).
  static func parseCompactEventLine(_ line: UnsafeRawBufferPointer) -> EventLog.StreamWrite? {
    guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
    var cursor = JSONCursor(base: base, count: line.count)
    var seen = 0
    var stream: String?
    var type: String?
    var data: Range<Int>?
    var metadata = EventMetadata()
    var id: EventID?
    var expectedVersion = ExpectedVersion.any
    var schemaVersion = 1
    // Both read through the cursor `readObject` hands out, never the one it is modifying.
    func text(_ slice: JSONStringSlice, _ cursor: JSONCursor) -> String? {
      guard !slice.hasEscapes else { return nil }
      return UTF8Text.string(UnsafeRawBufferPointer(cursor.bytes(of: slice)))
    }
    func member(_ key: JSONStringSlice, _ cursor: JSONCursor) -> Member? {
      if cursor.slice(key, equals: "stream") { return .stream }
      if cursor.slice(key, equals: "type") { return .type }
      if cursor.slice(key, equals: "data") { return .data }
      if cursor.slice(key, equals: "meta") { return .meta }
      if cursor.slice(key, equals: "id") { return .id }
      if cursor.slice(key, equals: "expectedVersion") { return .expectedVersion }
      if cursor.slice(key, equals: "schema") { return .schema }
      return nil
    }
    do {
      cursor.skipWhitespace()
      try cursor.readObject { key, cursor in
        guard let known = member(key, cursor), seen & (1 << known.rawValue) == 0 else {
          throw QuickPathDeclined()
        }
        seen |= 1 << known.rawValue
        cursor.skipWhitespace()
        switch known {
        case .stream, .type, .id:
          guard cursor.peek() == 0x22 else { throw QuickPathDeclined() }
          let slice = try cursor.readStringSlice()
          guard let value = text(slice, cursor) else { throw QuickPathDeclined() }
          switch known {
          case .stream: stream = value
          case .type: type = value
          default:
            guard let parsed = EventID(value) else { throw QuickPathDeclined() }
            id = parsed
          }
        case .data:
          guard cursor.peek() == 0x7B else { throw QuickPathDeclined() }
          // The quick step first (a compact object, checked a word at a time), else the
          // general skip, which also words the error.
          let range: Range<Int>
          if let compact = cursor.skipCompactObject() {
            range = compact
          } else {
            range = try cursor.skipValue()
          }
          guard isCompactWithoutEscapes(cursor.bytes(from: range.lowerBound, to: range.upperBound))
          else { throw QuickPathDeclined() }
          data = range
        case .meta:
          guard cursor.peek() == 0x7B else { throw QuickPathDeclined() }
          try cursor.readObject { key, cursor in
            cursor.skipWhitespace()
            guard cursor.peek() == 0x22 else { throw QuickPathDeclined() }
            let slice = try cursor.readStringSlice()
            guard let value = text(slice, cursor) else { throw QuickPathDeclined() }
            if cursor.slice(key, equals: "actor"), metadata.actor == nil {
              metadata.actor = value
            } else if cursor.slice(key, equals: "reason"), metadata.reason == nil {
              metadata.reason = value
            } else if cursor.slice(key, equals: "correlation"), metadata.correlation == nil {
              metadata.correlation = value
            } else if cursor.slice(key, equals: "causation"), metadata.causation == nil {
              metadata.causation = value
            } else {
              throw QuickPathDeclined()
            }
          }
        case .expectedVersion:
          guard let first = cursor.peek(), first >= 0x30, first <= 0x39 else {
            throw QuickPathDeclined()
          }
          expectedVersion = .exactly(try cursor.readInt64())
        case .schema:
          let number = try cursor.readInt64()
          guard number >= 1, number <= Int64(Int32.max) else { throw QuickPathDeclined() }
          schemaVersion = Int(number)
        }
      }
      try cursor.expectEnd()
    } catch {
      return nil
    }
    guard let stream, let type, let data else { return nil }
    let event = ProposedEvent(
      id: id, type: type, schemaVersion: schemaVersion,
      data: Array(UnsafeRawBufferPointer(rebasing: line[data])), metadata: metadata)
    return EventLog.StreamWrite(stream: stream, expectedVersion: expectedVersion, events: [event])
  }

  /// Whether JSON text has no whitespace outside its strings, no escape, and valid UTF-8:
  /// then it is exactly what writing its value compactly gives.
  static func isCompactWithoutEscapes(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var inString = false
    var ascii = true
    for byte in bytes {
      switch byte {
      case 0x5C: return false
      case 0x22: inString.toggle()
      case 0x20, 0x09, 0x0A, 0x0D: if !inString { return false }
      default: if byte >= 0x80 { ascii = false }
      }
    }
    return ascii
      || String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) != nil
  }

  /// Thrown inside the quick reader to hand the line to the general one.
  private struct QuickPathDeclined: Error {}
}
