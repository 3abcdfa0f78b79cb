import Engine
import Events
import Postgres

/// `replay digest`: the SHA-256 of the log up to an event.
enum DigestCommand {
  static let command = Command(
    name: "digest",
    abstract: "Print the SHA-256 of the log up to and including an event.",
    discussion: """
      Prints <seq>:<sha256 hex>, the form 'replay verify --digest' takes: keep it, and later \
      'replay verify --digest <seq>:<hex>' proves the log still begins with exactly those \
      events. The digest covers every byte of lines 1 through <seq>, newlines included.
      """,
    options: [
      CommonOptions.log,
      at, CommonOptions.json,
    ],
    run: run)

  static let at = ValueOption(
    names: ["--at"], valueName: "seq", help: "The last event to cover.",
    defaultDescription: "the last event", expecting: ProveCommand.positive, Int64.positive)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let sequence = try invocation[at]
    let digest =
      try invocation.postgresLog.map {
        try LogDigest.compute(lines: $0.lineSource, location: $0.name, through: sequence)
      } ?? LogDigest.compute(invocation.logReader, through: sequence)
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("seq", digest.sequence)
        writer.member("sha256", SHA256.hex(digest.sha256))
        writer.member("bytes", digest.byteCount)
      }
    } else {
      invocation.terminal.write("\(digest)\n")
    }
    return .success
  }
}
