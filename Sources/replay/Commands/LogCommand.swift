import Engine
import Events

/// `replay log`: the raw events, filtered.
enum LogCommand {
  static let command = Command(
    name: "log",
    abstract: "List events, oldest first.",
    discussion: """
      Prints a table of events (seq, time, stream, version, type, actor, reason), or with --json \
      the log's lines exactly as stored, one envelope per line. The table is printed as the log \
      is read: its column widths come from the first 1000 rows, and a later, wider cell pushes \
      the rest of its row.
      """,
    options: [
      CommonOptions.log,
      Option(names: ["--from"], valueName: "seq", help: "The first seq to list."),
      Option(names: ["--to"], valueName: "seq", help: "The last seq to list."),
      Option(names: ["--stream"], valueName: "stream", help: "Only this stream's events."),
      Option(names: ["--type"], valueName: "type", help: "Only events of this type."),
      Option(names: ["--limit"], valueName: "n", help: "At most this many events."),
      Option.flag(["--json"], help: "Print the stored lines (JSON envelopes) instead of a table."),
    ],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let positive = "expected a whole number ≥ 1"
    let from =
      try invocation.parse("--from", expecting: positive) {
        Int64($0).flatMap { $0 >= 1 ? $0 : nil }
      } ?? 1
    let to = try invocation.parse("--to", expecting: positive) {
      Int64($0).flatMap { $0 >= 1 ? $0 : nil }
    }
    let limit = try invocation.parse("--limit", expecting: "expected a whole number ≥ 0") {
      Int($0).flatMap { $0 >= 0 ? $0 : nil }
    }
    if let to, to < from {
      throw UsageError("'--to' (\(to)) is before '--from' (\(from))")
    }
    let stream = invocation.value("--stream")
    let type = invocation.value("--type")
    let json = invocation.flag("--json")
    var table = StreamingTextTable([
      .init(title: "SEQ", alignment: .right), .init(title: "TIME"),
      .init(title: "STREAM", maximumWidth: 48),
      .init(title: "VERSION", alignment: .right), .init(title: "TYPE"),
      .init(title: "ACTOR", maximumWidth: 24),
      .init(title: "REASON", maximumWidth: 48),
    ]) { invocation.terminal.write($0) }
    var shown = 0
    if limit == 0 { return .success }
    try invocation.logReader.forEachEvent { line in
      if line.sequence < from { return true }
      if let to, line.sequence > to { return false }
      if let stream, line.stream != stream { return true }
      if let type, line.type != type { return true }
      if json {
        invocation.terminal.write(bytes: Array(line.bytes) + [0x0A])
      } else {
        let metadata = line.metadata()
        table.append([
          String(line.sequence), line.timestamp.description, line.stream, String(line.version),
          line.type, metadata.actor ?? "", metadata.reason ?? "",
        ])
      }
      shown += 1
      return limit.map { shown < $0 } ?? true
    }
    if !json {
      table.finish()
      if shown == 0 { invocation.terminal.writeError("note: no events match\n") }
    }
    return .success
  }
}
