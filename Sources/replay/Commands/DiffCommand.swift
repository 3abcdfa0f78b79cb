import Engine
import Events
import Projections

/// `replay diff <model> --from <point> --to <point>`: what changed in one read model.
enum DiffCommand {
  static let command = Command(
    name: "diff",
    abstract: "Show what changed in one read model between two points of the log.",
    discussion: """
      A point is a seq (the state after that event; 0 is before the first) or an ISO 8601 \
      time (the state after every event whose time is at or before it, as --as-of; a time \
      without a zone is UTC). Both states are replayed (from checkpoints when there are \
      some) and compared entity by entity, field by field. --from after --to is allowed: \
      it shows the reverse change. A seq past the end of the log is an error (exit 65).

      Prints a summary line, then each added entity with its fields, each removed one with \
      the fields it had, and each changed one with 'field: before → after' lines; added, \
      then removed, then changed, each by id:

        contacts from seq 137 to seq 147: 0 added, 0 removed, 2 changed
        changed 16 (Roger Rabbit)
          isFavorite: true → false

      --json prints one object; a point is {"seq": n} or {"time": "..."}:
        {"model", "from", "to",
         "added": [{"id", "fields": [{"name", "value"}]}], "removed": [...],
         "changed": [{"id", "fields": [{"name", "before", "after"}]}]}
      "before" or "after" is null when the entity did not have the field.
      """,
    arguments: [ReadModelArguments.model],
    options: [
      CommonOptions.log,
      from, to, CommonOptions.json,
    ],
    run: run)

  static let from = ReadModelArguments.point(
    names: ["--from"], valueName: "point", help: "The older point: a seq or an ISO 8601 time.",
    isRequired: true)
  static let to = ReadModelArguments.point(
    names: ["--to"], valueName: "point", help: "The newer point: a seq or an ISO 8601 time.",
    defaultDescription: "the end of the log")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let model = try invocation.readModelName()
    let from = try invocation[DiffCommand.from] ?? .end
    let to = try invocation[DiffCommand.to] ?? .end
    let diff =
      try invocation.diffFromPostgres(model: model, from: from, to: to)
      ?? invocation.replayer.diff(model: model, from: from, to: to)
    invocation.writeJSONOrText(json: { json(diff) }, text: { text(diff) })
    return .success
  }

  /// The summary line, then one block per entity.
  static func text(_ diff: ReadModelDiff) -> String {
    let changes = diff.changes
    var text =
      "\(diff.model) from \(diff.from.text(lastSequence: diff.fromSequence)) "
      + "to \(diff.to.text(lastSequence: diff.toSequence)): "
      + "\(changes.added.count) added, \(changes.removed.count) removed, "
      + "\(changes.changed.count) changed\n"
    for (id, entry) in changes.added {
      text += heading("added", id, label: entry.label)
      for field in entry.fields { text += "  " + ChangeText.field(field) + "\n" }
    }
    for (id, entry) in changes.removed {
      text += heading("removed", id, label: entry.label)
      for field in entry.fields { text += "  " + ChangeText.field(field) + "\n" }
    }
    for change in changes.changed {
      text += heading("changed", change.id, label: diff.labels[EntityKey(change.id)])
      for field in change.fields {
        text += "  " + ChangeText.change(field, model: diff.model) + "\n"
      }
    }
    return text
  }

  /// `added 13 (Miss Piggy)`: the id, and the entity's name when it has one.
  static func heading(_ verb: String, _ id: String, label: String?) -> String {
    var line = verb + " " + ChangeText.escapingControlCharacters(id)
    if let label, label != id {
      line += " (" + ChangeText.escapingControlCharacters(label) + ")"
    }
    return line + "\n"
  }

  /// The diff as the documented JSON object.
  static func json(_ diff: ReadModelDiff) -> [UInt8] {
    var writer = JSONWriter(capacity: 1024)
    writer.beginObject()
    writer.member("model", diff.model)
    writer.key("from")
    diff.from.write(to: &writer, lastSequence: diff.fromSequence)
    writer.key("to")
    diff.to.write(to: &writer, lastSequence: diff.toSequence)
    for (key, entries) in [("added", diff.changes.added), ("removed", diff.changes.removed)] {
      writer.key(key)
      writer.beginArray()
      for (id, entry) in entries {
        writer.beginObject()
        writer.member("id", id)
        writer.key("fields")
        entry.writeFields(to: &writer)
        writer.endObject()
      }
      writer.endArray()
    }
    writer.member("changed", objects: diff.changes.changed) { writer, change in
      writer.member("id", change.id)
      writer.key("fields")
      writer.fieldDifferences(change.fields, nameKey: "name")
    }
    writer.endObject()
    return writer.bytes
  }
}
