import Engine
import Events
import Foundation
import Projections

/// `replay rebuild`: fold every read model and say how long it took.
enum RebuildCommand {
  static let command = Command(
    name: "rebuild",
    abstract: "Rebuild all five read models and report the time it took.",
    discussion: """
      Folds the whole log (or up to --at/--as-of) into the five read models and prints one \
      summary line: events, entities per model, seconds and events per second. Nothing is \
      printed of the models themselves: this is the replay that 'state' does, for timing. On \
      a terminal, standard error shows the progress of a long replay, with a rate and an \
      estimate of the time left.
      """,
    options: [CommonOptions.log] + ReadOptions.point + [CommonOptions.json],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let clock = ContinuousClock()
    let start = clock.now
    let progress = ProgressLine.forStandardError(invocation.terminal)
    defer { progress?.finish() }
    let result = try invocation.rebuild(progress: progress?.reading("rebuilding"))
    progress?.finish()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = seconds > 0 ? Double(result.eventsRead) / seconds : 0
    let counts = ReadModels.modelNames.map { name in
      (name, result.models.model(named: name)?.count ?? 0)
    }
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("seq", result.lastSequence)
        writer.member("eventsRead", result.eventsRead)
        writer.member("startedFromCheckpoint", result.startedFrom)
        writer.key("seconds")
        writer.number(seconds)
        writer.key("eventsPerSecond")
        writer.number(rate.rounded())
        writer.key("entities")
        writer.beginObject()
        for (name, count) in counts {
          writer.key(name)
          writer.integer(count)
        }
        writer.endObject()
      }
      return .success
    }
    let from = result.startedFrom.map { " from the checkpoint at seq \($0)" } ?? ""
    let entities = counts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    invocation.terminal.write(
      "rebuilt 5 read models at seq \(result.lastSequence)\(from): \(result.eventsRead) events in "
        + String(format: "%.3f s (%.2f M events/s); ", seconds, rate / 1e6) + entities + "\n")
    for saved in result.checkpointsSaved {
      invocation.terminal.writeError("note: saved a checkpoint at seq \(saved)\n")
    }
    return .success
  }
}
