import Engine
import Events
import Foundation

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
      from, to, stream, category, type, PostgresFollow.group, limit, follow,
      PostgresFollow.retryFor,
      CommonOptions.json.withHelp("Print the stored lines (JSON envelopes) instead of a table."),
      leafHashes,
    ],
    run: run)

  static let from = ValueOption(
    names: ["--from"], valueName: "seq|time",
    help: "The first seq to list, or the first time (ISO 8601) to list from.",
    expecting:
      "expected a seq (a whole number ≥ 1) or an ISO 8601 time such as 2026-11-03T12:00:00Z"
  ) { text -> From? in
    if let sequence = Int64(text) { return sequence >= 1 ? .sequence(sequence) : nil }
    return Timestamp.parseISO8601(text).map { .time($0) }
  }
  static let to = ValueOption(
    names: ["--to"], valueName: "seq", help: "The last seq to list.",
    expecting: ProveCommand.positive, Int64.positive)
  static let stream = TextOption(
    names: ["--stream"], valueName: "stream", help: "Only this stream's events.")
  static let category = TextOption(
    names: ["--category"], valueName: "category",
    help: "Only events of streams in this category (contact, state, location, ...).")
  static let type = TextOption(
    names: ["--type"], valueName: "type", help: "Only events of this type.")
  static let limit = ValueOption(
    names: ["--limit"], valueName: "n", help: "At most this many events.",
    expecting: "expected a whole number ≥ 0"
  ) { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
  static let leafHashes = Flag(
    ["--leaf-hashes"],
    help:
      #"With --json: each line as {"leafHash":"<hex>","event":<the line as stored>}, its RFC 9162 leaf hash beside it."#
  )
  static let follow = Flag(
    ["-f", "--follow"],
    help:
      "Keep going: print each new event as it is committed, until Ctrl-C, a closed pipe, --to or --limit."
  )

  /// `--from`: a seq or a time.
  enum From: Equatable {
    case sequence(Int64)
    case time(Timestamp)
  }

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let from = try invocation[LogCommand.from] ?? .sequence(1)
    let to = try invocation[LogCommand.to]
    let limit = try invocation[LogCommand.limit]
    if let to, case .sequence(let first) = from, to < first {
      throw UsageError("'--to' (\(to)) is before '--from' (\(first))")
    }
    var filter = EventFilter()
    if let stream = invocation[stream] { filter.streams = [stream] }
    if let category = invocation[category] {
      filter.categories = [category.hasSuffix("-") ? String(category.dropLast()) : category]
    }
    if let type = invocation[type] { filter.types = [type] }
    filter.group = try invocation[PostgresFollow.group]
    let json = invocation[CommonOptions.json]
    let leafHashes = invocation[LogCommand.leafHashes]
    if leafHashes && !json {
      throw UsageError("'--leaf-hashes' goes with '--json': the table has no room for them")
    }
    let follow = invocation[LogCommand.follow]
    try invocation.refuseRetryWithoutFollow(follow)
    var table = StreamingTextTable([
      .init(title: "SEQ", alignment: .right), .init(title: "TIME"),
      .init(title: "STREAM", maximumWidth: 48),
      .init(title: "VERSION", alignment: .right), .init(title: "TYPE"),
      .init(title: "ACTOR", maximumWidth: 24),
      .init(title: "REASON", maximumWidth: 48),
    ]) { invocation.terminal.write($0) }
    var shown = 0
    if limit == 0 { return .success }
    func show(_ line: EventLine) -> Bool {
      if leafHashes {
        // The line stays byte for byte as stored (its leaf hash and crc are over those bytes).
        var output = Array(#"{"leafHash":""#.utf8)
        SHA256.appendHex(MerkleTree.leafHash(line.bytes), to: &output)
        output += Array(#"","event":"#.utf8) + Array(line.bytes) + Array("}\n".utf8)
        invocation.terminal.write(bytes: output)
      } else if json {
        invocation.terminal.write(bytes: Array(line.bytes) + [0x0A])
      } else {
        let metadata = line.metadata()
        table.append([
          String(line.sequence), line.timestamp.description, line.stream, String(line.version),
          line.type, metadata.actor ?? "", metadata.reason ?? "",
        ])
      }
      shown += 1
      // Once standard output has failed, the rest could only be lost: stop reading.
      if invocation.terminal.hasOutputFailed { return false }
      return limit.map { shown < $0 } ?? true
    }
    if follow {
      try self.follow(
        invocation, from: from, to: to, filter: filter, flushTable: { table.finish() },
        show: show)
      return .success
    }
    var firstSequence: Int64 = 1
    var notBefore: Timestamp?
    switch from {
    case .sequence(let sequence): firstSequence = sequence
    // Times never go backwards: the first event at or after the time starts the listing.
    case .time(let instant): notBefore = instant
    }
    func showFrom(_ line: EventLine) -> Bool {
      if let time = notBefore {
        if line.timestamp < time { return true }
        notBefore = nil
      }
      return show(line)
    }
    // A stream or a category is read through the writer's index when there is one.
    if try !invocation.forEachPostgresEvent(
      matching: filter, from: firstSequence, through: to, showFrom)
    {
      try invocation.logReader.forEachEvent(
        matching: filter, from: firstSequence, through: to, showFrom)
    }
    if !json {
      table.finish()
      if shown == 0 { invocation.terminal.writeError("note: no events match\n") }
    }
    return .success
  }

  /// `--follow`: the committed events from `from`, then each new one, until `body` says stop,
  /// `--to` is passed, Ctrl-C, standard output's reader goes away, or a write to it fails.
  static func follow(
    _ invocation: ParsedInvocation, from: From, to: Int64?, filter: EventFilter,
    flushTable: () -> Void, show: (EventLine) -> Bool
  ) throws {
    let start: FollowStart =
      switch from {
      case .sequence(let sequence): .afterSequence(sequence - 1)
      case .time(let instant): .time(instant)
      }
    let follower = try invocation.follower(from: start, filter: filter)
    let stop = FollowInterruption(stopping: follower)
    defer { stop.cancel() }
    var waitingSaid = false
    var delivered = false
    func caughtUp() -> Bool {
      flushTable()
      invocation.terminal.flush()
      // Standard output failed (or its pipe closed): waiting for more would never end well.
      if invocation.terminal.hasOutputFailed { return false }
      if !delivered, !waitingSaid, isatty(STDERR_FILENO) == 1 {
        waitingSaid = true
        invocation.terminal.writeError(
          "note: waiting for events from \(start) to be appended (Ctrl-C to stop)\n")
      }
      return true
    }
    try follower.follow(through: to, caughtUp: caughtUp) { line in
      delivered = true
      return show(line)
    }
    flushTable()
    invocation.terminal.flush()
  }
}
