import Engine
@_spi(Tables) import Events
import Foundation
import Synchronization

/// `replay append`: raw events, one from options or many from a file.
enum AppendCommand {
  static let command = Command(
    name: "append",
    abstract: "Append events to the log.",
    discussion: """
      With --stream, --type and --data, appends one event and prints its seq. With --file, \
      appends every event of a JSON-lines file (or - for standard input) as one atomic write: \
      all of them or, if any line is invalid, none. Each line is an object \
      {"stream", "type", "data", "meta"?, "id"?, "expectedVersion"?}.

      An event whose id is already in the log with the same stream, type and data is not \
      appended again: its existing seq is printed. The same id with other content is an error.
      """,
    options: [
      Option(
        names: ["--stream"], valueName: "stream", help: "The stream to append to, e.g. contact-13."),
      Option(names: ["--type"], valueName: "type", help: "The event type, e.g. ContactFavorited."),
      Option(names: ["--data"], valueName: "json", help: "The payload: one JSON object."),
      Option(names: ["--id"], valueName: "uuid", help: "The event's id (default: a new one)."),
      CommonOptions.expectedVersion,
      Option(
        names: ["--file"], valueName: "path",
        help: "Append every event of this JSON-lines file ('-' for standard input)."),
      Option(
        names: ["--chunk-size"], valueName: "n", help: "With --file: events per fsync.",
        defaultValue: "1000"),
    ] + CommonOptions.audit + CommonOptions.writing + [
      Option.flag(["--json"], help: "Print the appended envelope (with --file: a JSON summary).")
    ],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    if let file = invocation.value("--file") {
      for single in ["--stream", "--type", "--data", "--id"] where invocation.value(single) != nil {
        throw UsageError("'\(single)' cannot be combined with '--file'; put it in the file's lines")
      }
      return try appendFile(file, invocation)
    }
    guard let stream = invocation.value("--stream"), let type = invocation.value("--type"),
      let dataText = invocation.value("--data")
    else {
      let missing = ["--stream", "--type", "--data"].filter { invocation.value($0) == nil }
      throw UsageError(
        "Missing \(missing.map { "'\($0)'" }.joined(separator: ", ")): give --stream, --type and --data, or --file"
      )
    }
    let id = try invocation.parse(
      "--id", expecting: "expected a UUID like 6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"
    ) {
      EventID($0)
    }
    let data: JSONValue
    do {
      data = try JSONValue.parse(dataText)
    } catch {
      throw InputError.invalid("--data is not valid JSON: \(error)")
    }
    guard case .object = data else {
      throw InputError.invalid("--data must be a JSON object, found \(data.kindDescription)")
    }
    let event = ProposedEvent(
      id: id, type: type, schemaVersion: 1, data: data.compactBytes, metadata: invocation.metadata)
    try Vocabulary.check(event, stream: stream, location: nil)
    let log = try invocation.openLogForWriting()
    let outcomes = try log.append(
      [event], to: stream, expectedVersion: try invocation.expectedVersion())
    for outcome in outcomes {
      if outcome.isDuplicate {
        invocation.terminal.writeError(
          "note: event \(outcome.event.id) is already in the log at seq \(outcome.event.sequence); nothing appended\n"
        )
      }
      if invocation.flag("--json") {
        invocation.terminal.write(bytes: outcome.event.logLine)
      } else {
        invocation.terminal.write("\(outcome.event.sequence)\n")
      }
    }
    return .success
  }

  /// `append --file`: parse and check every line first, then write them all at once.
  static func appendFile(_ path: String, _ invocation: ParsedInvocation) throws -> ExitCode {
    let chunkSize =
      try invocation.parse("--chunk-size", expecting: "expected a whole number ≥ 1") {
        Int($0).flatMap { $0 >= 1 ? $0 : nil }
      } ?? 1000
    let name = path == "-" ? "<stdin>" : path
    let bytes = try InputFile.read(path)
    let (writes, problems) = try parseLines(bytes, name: name)
    guard problems.isEmpty else {
      let count = problems.count == 1 ? "1 invalid line" : "\(problems.count) invalid lines"
      throw InputError.invalid(
        "\(count) in '\(name)'; nothing was appended:\n  " + problems.joined(separator: "\n  "))
    }
    guard !writes.isEmpty else {
      invocation.terminal.writeError("note: '\(name)' holds no events; nothing appended\n")
      return .success
    }
    let log = try invocation.openLogForWriting()
    let summary = try log.importEvents(writes, chunkSize: chunkSize)
    if invocation.flag("--json") {
      var writer = JSONWriter()
      writer.beginObject()
      writer.key("appended")
      writer.integer(summary.appendedCount)
      writer.key("duplicates")
      writer.integer(summary.duplicateCount)
      writer.key("firstSeq")
      if let sequences = summary.sequences {
        writer.integer(sequences.lowerBound)
      } else {
        writer.null()
      }
      writer.key("lastSeq")
      if let sequences = summary.sequences {
        writer.integer(sequences.upperBound)
      } else {
        writer.null()
      }
      writer.endObject()
      invocation.terminal.write(bytes: writer.bytes + [0x0A])
    } else {
      var text = "appended \(summary.appendedCount) event\(summary.appendedCount == 1 ? "" : "s")"
      if let sequences = summary.sequences {
        text += " (seq \(sequences.lowerBound)...\(sequences.upperBound))"
      }
      if summary.duplicateCount > 0 {
        text += "; \(summary.duplicateCount) already in the log"
      }
      invocation.terminal.write(text + "\n")
    }
    return .success
  }

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
          let newline = bytes.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress, lineStart < range.upperBound,
              let found = memchr(base + lineStart, 0x0A, range.upperBound - lineStart)
            else { return range.upperBound }
            return base.distance(to: UnsafeRawPointer(found))
          }
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

  /// How many newlines `bytes[range]` holds, found with `memchr`.
  static func newlineCount(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
    bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return 0 }
      var count = 0
      var position = range.lowerBound
      while position < range.upperBound,
        let found = memchr(base + position, 0x0A, range.upperBound - position)
      {
        count += 1
        position = base.distance(to: UnsafeRawPointer(found)) + 1
      }
      return count
    }
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

/// Reading input files (not the log) with the documented errors.
enum InputFile {
  /// The whole file, or standard input for `-`.
  static func read(_ path: String) throws -> [UInt8] {
    if path == "-" {
      return Array(FileHandle.standardInput.readDataToEndOfFile())
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw InputError.unavailable("no such file '\(path)'")
    }
    guard !isDirectory.boolValue else {
      throw InputError.unavailable("'\(path)' is a directory, not a file")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InputError.unavailable("cannot read '\(path)' (check its permissions)")
    }
    return Array(data)
  }
}
