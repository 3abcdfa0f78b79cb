import Engine
import Events
import Foundation
import Generator

/// `replay generate`: a realistic, valid log of any size, the same for the same seed.
enum GenerateCommand {
  static let command = Command(
    name: "generate",
    abstract: "Write a realistic generated log; the same seed gives the same bytes.",
    discussion: """
      Makes up what users of the five apps do: contacts added, updated and (most often) \
      favourited and unfavourited; zip codes added, modified and removed; Taipei Zoo records \
      imported (real records, 1-3 KB of Chinese text each) and animals inserted and removed; \
      locations added anywhere on Earth, moved, renamed and removed; observations of all seven \
      classifications recorded, revised and removed. Every event is one the domain's rules \
      allow at that point, so the log replays cleanly; lines average about 300 bytes.

      The same --seed gives the same bytes: events are stamped 2024-01-01T00:00:00Z plus one \
      minute per chunk, and their ids derive from the seed and their seq as with --id-seed. \
      Events are written --chunk-size at a time, each chunk one atomic write synced once, so \
      memory stays small however many events are asked for.

      The log must be new or empty, so a generated log is always the same bytes; --append adds \
      to a log that has events (new entities then avoid the ids it uses, and the clock starts \
      a minute after its last event).

      On a terminal, standard error shows the progress of a long run, with a rate and an \
      estimate of the time left.
      """,
    options: [
      events, seed, CommonOptions.log, chunkSize, append, CommonOptions.noFsync,
      CommonOptions.lockTimeout,
      CommonOptions.json.withHelp(
        "Print a JSON summary: {\"log\", \"appended\", \"firstSeq\", \"lastSeq\", \"writes\", \"bytes\", \"seconds\", \"eventsPerSecond\", \"eventsByType\"}."
      ),
    ],
    run: run)

  static let events = ValueOption(
    names: ["--events"], valueName: "n", help: "How many events to write.", isRequired: true,
    expecting: "expected a whole number ≥ 0"
  ) { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
  static let seed = TextOption(
    names: ["--seed"], valueName: "seed", help: "Any text; the same seed gives the same log.",
    isRequired: true)
  static let chunkSize = CommonOptions.chunkSize(
    help: "Events per atomic write (and fsync).", defaultValue: 10_000)
  static let append = Flag(["--append"], help: "Add to a log that already has events.")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let terminal = invocation.terminal
    let count = try invocation[events]
    let chunkSize = try invocation[GenerateCommand.chunkSize] ?? 10_000
    let lockTimeout = try invocation[CommonOptions.lockTimeout] ?? 10
    let seed = invocation.requiredValue(GenerateCommand.seed)
    let path = invocation.logPath
    let append = invocation[GenerateCommand.append]

    // Only a regular file can hold events; anything else is left for opening the log to refuse.
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    let isFile = attributes?[.type] as? FileAttributeType == .typeRegular
    let existingSize = isFile ? (attributes?[.size] as? Int) ?? 0 : 0
    if existingSize > 0, !append {
      throw InputError.invalid(
        "'\(path)' already holds \(existingSize) bytes; generate writes a new log, so the same "
          + "seed always gives the same bytes: remove the file, choose another --log, or pass "
          + "--append to add to it")
    }
    var start = GenerationClock.defaultStart
    if existingSize > 0, let last = try LogStatistics(reading: invocation.logReader).lastTimestamp {
      start = max(
        start, Timestamp(millisecondsSince1970: last.millisecondsSince1970 + 60_000))
    }

    let noFsync = invocation.noFsyncWarned()
    let clock = GenerationClock(start: start)
    let log = try EventLog(
      path: path,
      configuration: .generating(
        seed: seed, clock: clock, syncPolicy: noFsync ? .never : .always,
        lockTimeout: lockTimeout, report: { terminal.writeError("replay: \($0)\n") }))
    var generator = LogGenerator(seed: seed) { ((try? log.version(of: $0)) ?? 0) > 0 }

    let started = ContinuousClock.now
    let total = Int64(count ?? 0)
    let progress = ProgressLine.forStandardError(terminal)
    defer { progress?.finish() }
    let summary = try log.appendGenerated(
      count ?? 0, from: &generator, chunkSize: chunkSize, clock: clock
    ) { progress?.update("generating", done: Int64($0), total: total, unit: .events) }
    progress?.finish()
    let elapsed = ContinuousClock.now - started
    if invocation[CommonOptions.json] {
      terminal.write(bytes: json(summary, path: path, elapsed: elapsed))
    } else {
      terminal.write(report(summary, path: path, elapsed: elapsed))
    }
    return .success
  }

  /// The summary as data, in the words of `append --json` and `rebuild --json`.
  static func json(_ summary: GenerationSummary, path: String, elapsed: Duration) -> [UInt8] {
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return JSONWriter.objectLine { writer in
      writer.member("log", path)
      writer.member("appended", summary.eventCount)
      writer.sequenceMembers(summary.sequences)
      writer.member("writes", summary.chunkCount)
      writer.member("bytes", summary.byteCount)
      writer.key("seconds")
      writer.number(seconds)
      writer.key("eventsPerSecond")
      writer.number(seconds > 0 ? (Double(summary.eventCount) / seconds).rounded() : 0)
      writer.counts("eventsByType", sortedTypes(summary))
    }
  }

  /// Event types, the most frequent first (then by name).
  static func sortedTypes(_ summary: GenerationSummary) -> [(name: String, count: Int)] {
    summary.eventsByType.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map {
      ($0.key, $0.value)
    }
  }

  /// The summary: totals, then events by type.
  ///
  ///     generated 20000 events (seq 1...20000) into 'events.jsonl' in 2 atomic writes:
  ///     5612345 bytes, 280.6 bytes an event, in 0.42 s (47619 events/s)
  ///     TYPE              EVENTS  SHARE
  ///     ContactFavorited    4012  20.1%
  static func report(_ summary: GenerationSummary, path: String, elapsed: Duration) -> String {
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let count = summary.eventCount
    let sequences = summary.sequences.map { " (seq \($0.lowerBound)...\($0.upperBound))" } ?? ""
    let average = count == 0 ? 0 : Double(summary.byteCount) / Double(count)
    let rate = seconds > 0 ? Int((Double(count) / seconds).rounded()) : count
    var text =
      "generated \(count) events\(sequences) into '\(path)' in \(summary.chunkCount) atomic "
      + "write\(summary.chunkCount == 1 ? "" : "s"):\n"
      + "\(summary.byteCount) bytes, \(format(average, decimals: 1)) bytes an event, "
      + "in \(format(seconds, decimals: 2)) s (\(rate) events/s)\n"
    guard count > 0 else { return text }
    var table = TextTable([
      .init(title: "TYPE"), .init(title: "EVENTS", alignment: .right),
      .init(title: "SHARE", alignment: .right),
    ])
    for (type, events) in sortedTypes(summary) {
      table.append([
        type, String(events), format(100 * Double(events) / Double(count), decimals: 1) + "%",
      ])
    }
    text += table.render()
    return text
  }

  /// `value` with a fixed number of decimals, without Foundation's locale-dependent formatting.
  static func format(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(scaled % Int(scale))
    guard decimals > 0 else { return String(whole) }
    return "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
  }
}
