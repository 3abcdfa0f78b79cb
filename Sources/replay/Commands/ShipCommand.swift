import Engine
import Events
import Foundation
import Postgres

/// `replay ship`: the log's committed events into a PostgreSQL database in Message DB's schema.
enum ShipCommand {
  static let command = Command(
    name: "ship",
    abstract: "Ship the log's events into PostgreSQL (Message DB's schema), exactly once each.",
    discussion: """
      Every committed event not yet in the database is inserted into message_store.messages, \
      in seq order, in batches; each batch and the last seq shipped are committed in one \
      transaction, so a shipper killed at any instant neither loses nor repeats an event: run \
      it again and it resumes. --follow then ships each event as it is committed, until \
      Ctrl-C. When the server goes away (a restart, a failover), the shipper connects again, \
      waiting 0.1 s, then twice as long after each failure up to 5 s, and resumes where the \
      database stands; after --retry-for seconds without a connection it gives up (exit 69). Payloads are shipped as stored: sealed personal data stays sealed (the key \
      store is not shipped). Prepare the database with 'replay pg init <url>' first.
      """,
    options: [
      CommonOptions.log,
      to, follow, batch, retryFor,
      CommonOptions.json.withHelp(
        "Print a JSON line after each batch (at most one a second) and at the end."),
    ],
    run: run)

  static let to = TextOption(
    names: ["--to"], valueName: "url", help: "The database, as a libpq connection string.",
    isRequired: true)
  static let follow = Flag(
    ["-f", "--follow"], help: "Keep shipping new events as they are committed.")
  static let batch = ValueOption(
    names: ["--batch"], valueName: "n", help: "Events a transaction at most.",
    defaultValue: "1000", expecting: "expected a whole number 1-8000"
  ) { Int($0).flatMap { (1...8000).contains($0) ? $0 : nil } }
  static let retryFor = ValueOption(
    names: ["--retry-for"], valueName: "seconds",
    help: "How long to keep reconnecting to a server that went away (0: not at all).",
    defaultDescription: "30, or forever with --follow",
    expecting: "expected a whole number of seconds, 0 or more"
  ) { Int($0).flatMap { $0 >= 0 ? $0 : nil } }

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let batchSize = try invocation[batch]
    let json = invocation[CommonOptions.json]
    let following = invocation[follow]
    let retrySeconds = try invocation[retryFor]
    let url = invocation.requiredValue(to)
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    let terminal = invocation.terminal
    let giveUpAfter = retrySeconds.map { Duration.seconds($0) } ?? (following ? nil : .seconds(30))
    let reconnection =
      giveUpAfter == .zero
      ? nil
      : LogShipper.Reconnection.saying(
        on: terminal, url: url, target: connection.target, giveUpAfter: giveUpAfter,
        eventsUpToLast: "is in the database")
    let shipper = try LogShipper(
      logPath: invocation.logPath, connection: connection, batchSize: batchSize ?? 1000,
      reconnection: reconnection)
    let stop = following ? FollowInterruption(stopping: shipper.follower) : nil
    defer { stop?.cancel() }
    let showsProgress = !json && isatty(STDERR_FILENO) == 1
    let started = ContinuousClock.now
    var lastReport = ContinuousClock.now - .seconds(10)
    var progressShown = false
    var lastPrinted: LogShipper.Progress?
    var lastShown: LogShipper.Progress?
    func rate(_ progress: LogShipper.Progress) -> Int64 {
      let elapsed = ContinuousClock.now - started
      let seconds =
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      return seconds > 0 ? Int64(Double(progress.shippedEvents) / seconds) : 0
    }
    let final = try shipper.ship(following: following) { progress in
      let now = ContinuousClock.now
      // At most a line a second while catching up; always the line that says it caught up,
      // once (the batch's report and the caught-up one are the same progress).
      guard now - lastReport >= .seconds(1) || progress.lag == 0, progress != lastShown else {
        return
      }
      lastShown = progress
      lastReport = now
      if json {
        lastPrinted = progress
        terminal.write(bytes: line(progress, eventsPerSecond: rate(progress)))
        terminal.flush()
      } else if showsProgress {
        progressShown = true
        terminal.writeError(
          "\rshipped \(progress.shippedEvents) events, seq \(progress.lastShippedSequence) of "
            + "\(progress.logLastSequence), \(rate(progress)) events/s\u{1B}[K")
      }
    }
    if progressShown { terminal.writeError("\r\u{1B}[K") }
    if json {
      if lastPrinted != final { terminal.write(bytes: line(final, eventsPerSecond: rate(final))) }
    } else {
      terminal.write(
        final.shippedEvents == 0
          ? "nothing to ship: '\(connection.target)' has every event up to seq "
            + "\(final.lastShippedSequence)\n"
          : "shipped \(final.shippedEvents) events (up to seq \(final.lastShippedSequence)) to "
            + "'\(connection.target)'\n")
    }
    return .success
  }

  /// `{"shipped":…,"seq":…,"logSeq":…,"lag":…,"lagMilliseconds":…,"eventsPerSecond":…}`:
  /// `lag` counts the events committed in the log and not yet shipped; `lagMilliseconds` is
  /// how long after its append the last shipped event was committed in PostgreSQL.
  static func line(_ progress: LogShipper.Progress, eventsPerSecond: Int64) -> [UInt8] {
    return JSONWriter.objectLine { writer in
      writer.member("shipped", progress.shippedEvents)
      writer.member("seq", progress.lastShippedSequence)
      writer.member("logSeq", progress.logLastSequence)
      writer.member("lag", progress.lag)
      if let at = progress.lastShippedAt {
        writer.key("lagMilliseconds")
        writer.integer(
          max(0, progress.committedAt.millisecondsSince1970 - at.millisecondsSince1970))
      }
      writer.member("eventsPerSecond", eventsPerSecond)
    }
  }
}
