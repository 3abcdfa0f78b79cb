import Engine
import Events

/// `replay verify`: check every line; read-only.
enum VerifyCommand {
  static let command = Command(
    name: "verify",
    abstract: "Check the whole log's integrity without changing it.",
    discussion: """
      Checks every line: its checksum and envelope, seq gapless from 1, versions consecutive per \
      stream, ids unique, multi-event writes complete, payloads valid JSON. Prints a one-line \
      summary and exits 0, or lists every problem with its line number and exits 74. It never \
      repairs anything.
      """,
    options: [CommonOptions.log, CommonOptions.json],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let report = try LogVerifier(path: invocation.logPath).verify()
    if invocation.flag("--json") {
      var writer = JSONWriter()
      writer.beginObject()
      writer.key("valid")
      writer.bool(report.isValid)
      writer.key("events")
      writer.integer(report.eventCount)
      writer.key("streams")
      writer.integer(report.streamCount)
      writer.key("lastSeq")
      writer.integer(report.lastSequence)
      writer.key("bytes")
      writer.integer(report.byteCount)
      writer.key("problems")
      writer.beginArray()
      for problem in report.problems {
        writer.beginObject()
        writer.key("line")
        writer.integer(problem.line)
        writer.key("offset")
        writer.integer(problem.offset)
        writer.key("message")
        writer.string(problem.message)
        writer.endObject()
      }
      writer.endArray()
      writer.key("uncommittedTail")
      if let tail = report.uncommittedTail { writer.string(tail) } else { writer.null() }
      writer.endObject()
      invocation.terminal.write(bytes: writer.bytes + [0x0A])
    } else {
      if let tail = report.uncommittedTail {
        invocation.terminal.writeError(
          "note: the log ends with \(tail); readers ignore it and the next append cuts it\n")
      }
      let summary =
        "\(report.eventCount) events, \(report.streamCount) streams, last seq \(report.lastSequence), \(report.byteCount) bytes"
      if report.isValid {
        invocation.terminal.write("ok: \(summary)\n")
      } else {
        for problem in report.problems {
          invocation.terminal.write("\(invocation.logPath):\(problem.line): \(problem.message)\n")
        }
        let count = report.problems.count == 1 ? "1 problem" : "\(report.problems.count) problems"
        invocation.terminal.write("FAILED: \(count); \(summary)\n")
      }
    }
    return report.isValid ? .success : .ioError
  }
}
