import Engine
import Events
import Foundation
import Postgres

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

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
    options: [stream, type, data, id, CommonOptions.expectedVersion, file, chunkSize]
      + CommonOptions.audit + CommonOptions.writing + [
        CommonOptions.json.withHelp("Print the appended envelope (with --file: a JSON summary).")
      ],
    run: run)

  static let stream = TextOption(
    names: ["--stream"], valueName: "stream", help: "The stream to append to, e.g. contact-13.")
  static let type = TextOption(
    names: ["--type"], valueName: "type", help: "The event type, e.g. ContactFavorited.")
  static let data = TextOption(
    names: ["--data"], valueName: "json", help: "The payload: one JSON object.")
  static let id = ValueOption(
    names: ["--id"], valueName: "uuid", help: "The event's id (default: a new one).",
    expecting: "expected a UUID like 6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"
  ) { EventID($0) }
  static let file = TextOption(
    names: ["--file"], valueName: "path",
    help: "Append every event of this JSON-lines file ('-' for standard input).")
  static let chunkSize = CommonOptions.chunkSize(
    help: "With --file: events per fsync.", defaultValue: 1000)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    if let file = invocation[AppendCommand.file] {
      let singles: [any OptionDeclaration] = [stream, type, data, id]
      if let single = singles.first(where: invocation.isGiven) {
        throw UsageError(
          "'\(single.option.preferredName)' cannot be combined with '--file'; put it in the file's lines"
        )
      }
      return try appendFile(file, invocation)
    }
    guard let streamName = invocation[stream], let typeName = invocation[type],
      let dataText = invocation[data]
    else {
      let missing = [stream, type, data].filter { invocation[$0] == nil }
      throw UsageError(
        "Missing \(missing.map { "'\($0.option.preferredName)'" }.joined(separator: ", ")): give --stream, --type and --data, or --file"
      )
    }
    let id = try invocation[AppendCommand.id]
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
      id: id, type: typeName, schemaVersion: 1, data: data.compactBytes,
      metadata: invocation.metadata)
    try Vocabulary.check(event, stream: streamName, location: nil)
    let expectedVersion = try invocation.expectedVersion()
    let outcomes: [EventLog.Outcome]
    if let database = try invocation.openPostgresWriter() {
      defer { database.close() }
      outcomes = try database.append([event], to: streamName, expectedVersion: expectedVersion)
    } else {
      let log = try invocation.openLogForWriting()
      outcomes = try log.append([event], to: streamName, expectedVersion: expectedVersion)
    }
    for outcome in outcomes {
      if outcome.isDuplicate {
        invocation.terminal.writeError(
          "note: event \(outcome.event.id) is already in the log at seq \(outcome.event.sequence); nothing appended\n"
        )
      }
      if invocation[CommonOptions.json] {
        invocation.terminal.write(bytes: outcome.event.logLine)
      } else {
        invocation.terminal.write("\(outcome.event.sequence)\n")
      }
    }
    return .success
  }

  /// `append --file`: parse and check every line first, then write them all at once.
  static func appendFile(_ path: String, _ invocation: ParsedInvocation) throws -> ExitCode {
    let chunkSize = try invocation[AppendCommand.chunkSize] ?? 1000
    let name = path == "-" ? "<stdin>" : path
    let bytes = try InputFile.read(path)
    let (writes, problems) = parseLines(bytes, name: name)
    guard problems.isEmpty else {
      let count = problems.count == 1 ? "1 invalid line" : "\(problems.count) invalid lines"
      throw InputError.invalid(
        "\(count) in '\(name)'; nothing was appended:\n  " + problems.joined(separator: "\n  "))
    }
    guard !writes.isEmpty else {
      invocation.terminal.writeError("note: '\(name)' holds no events; nothing appended\n")
      return .success
    }
    let summary: (appendedCount: Int, duplicateCount: Int, sequences: ClosedRange<Int64>?)
    if let database = try invocation.openPostgresWriter() {
      // One transaction: all of the file or nothing, as on a file.
      defer { database.close() }
      let write = try database.append(writes)
      let sequences = write.appended.first.flatMap { first in
        write.appended.last.map { first.sequence...$0.sequence }
      }
      summary = (write.appended.count, write.duplicateCount, sequences)
    } else {
      let log = try invocation.openLogForWriting()
      let imported = try log.importEvents(writes, chunkSize: chunkSize)
      summary = (imported.appendedCount, imported.duplicateCount, imported.sequences)
    }
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("appended", summary.appendedCount)
        writer.member("duplicates", summary.duplicateCount)
        writer.sequenceMembers(summary.sequences)
      }
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
    if !isRegularFile(path) {
      // A pipe, a FIFO or a device (`/dev/stdin`, `<(...)`): read to its end, as `-` is.
      guard let handle = FileHandle(forReadingAtPath: path) else {
        throw InputError.unavailable("cannot read '\(path)' (check its permissions)")
      }
      defer { try? handle.close() }
      do {
        return Array(try handle.readToEnd() ?? Data())
      } catch {
        throw InputError.unavailable("cannot read '\(path)': \(error.localizedDescription)")
      }
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InputError.unavailable("cannot read '\(path)' (check its permissions)")
    }
    return Array(data)
  }

  /// Whether `path` names (through any symbolic links) a regular file.
  static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }
}
