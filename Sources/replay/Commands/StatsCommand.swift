import Engine
import Events
import Postgres

/// `replay stats`: counts by type and by stream category.
enum StatsCommand {
  static let command = Command(
    name: "stats",
    abstract: "Count events by type and by stream category.",
    discussion: """
      A stream's category is its name up to the first '-' (contact-13 → contact).
      """,
    options: [CommonOptions.log, CommonOptions.json],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let database = invocation.postgresLog
    let statistics =
      try database.map { try LogStatistics(lines: $0.lineSource) }
      ?? LogStatistics(reading: invocation.logReader)
    let types = statistics.eventsByType.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
    let categories = statistics.eventsByCategory.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("events", statistics.eventCount)
        writer.member("streams", statistics.streamCount)
        writer.member("lastSeq", statistics.lastSequence)
        writer.member("bytes", statistics.byteCount)
        writer.member("firstTime", statistics.firstTimestamp?.description)
        writer.member("lastTime", statistics.lastTimestamp?.description)
        writer.counts("byType", types.map { (name: $0.key, count: $0.value) })
        writer.key("byCategory")
        writer.beginObject()
        for (category, count) in categories {
          writer.key(category)
          writer.beginObject()
          writer.member("events", count)
          writer.member("streams", statistics.streamsByCategory[category] ?? 0)
          writer.endObject()
        }
        writer.endObject()
      }
      return .success
    }
    var text = """
      events      \(statistics.eventCount)\(statistics.eventCount > 0 ? " (seq 1...\(statistics.lastSequence))" : "")
      streams     \(statistics.streamCount)
      \(database == nil ? "file size  " : "line bytes ") \(statistics.byteCount) bytes
      first time  \(statistics.firstTimestamp?.description ?? "-")
      last time   \(statistics.lastTimestamp?.description ?? "-")


      """
    var byType = TextTable([.init(title: "TYPE"), .init(title: "EVENTS", alignment: .right)])
    for (type, count) in types { byType.append([type, String(count)]) }
    text += byType.render() + "\n"
    var byCategory = TextTable([
      .init(title: "CATEGORY"), .init(title: "EVENTS", alignment: .right),
      .init(title: "STREAMS", alignment: .right),
    ])
    for (category, count) in categories {
      byCategory.append([
        category, String(count), String(statistics.streamsByCategory[category] ?? 0),
      ])
    }
    text += byCategory.render()
    invocation.terminal.write(text)
    return .success
  }
}
