import Engine
import Events
import Postgres
import Projections

/// `replay history <stream | entity id>`: the audit of one entity.
enum HistoryCommand {
  static let command = Command(
    name: "history",
    abstract: "Show every event of one entity: who changed what, when and why.",
    discussion: """
      <entity> is a stream name (contact-13, state-New York, animal-user-1, \
      location-<id>, observation-<id>) or an entity id (13, California, user-1, zoo-panthera-pardus, a \
      location's or an observation's id). A name of a stream with events is that stream; \
      otherwise the id is tried under each category: contact-, state-, observation-, \
      animal-, location-. An id found under several is refused (exit 65): give the stream \
      name. So is one found nowhere, with a similar stream suggested when there is one.

      Each event is shown with its seq, time, type, actor and reason, and for an imported \
      event '(imported from <source>)'; then what it changed in the entity as its read \
      model shows it: every field of an entity it created, else each changed field as \
      'before → after' ('(none)' for an absent field, '(no change)' when nothing changed). \
      The changes come from folding only this stream's events. A zip code list shows only \
      the zip codes that changed ('zipCodes: 90001 → 90011', 'zipCodes: added 90003').

        contact-13: 3 events (entity 13 of contacts)

        seq 138  2026-11-02T10:30:00.000Z  ContactFavorited  by ana — "VIP donor"
          isFavorite: false → true

      --json prints one object; absent values are null, and a field's "before" or "after" \
      is null when the entity did not have it:
        {"stream", "model", "entity", "events": [{"seq", "version", "at", "type",
         "actor", "reason", "correlation", "causation", "source",
         "changes": [{"field", "before", "after"}]}]}
      """,
    arguments: [
      Argument(
        name: "entity",
        help: "A stream (contact-13) or an entity id (13, California, user-1, zoo-panthera-pardus)."
      )
    ],
    options: [CommonOptions.log, CommonOptions.json],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let entity = invocation.requiredValue("entity")
    let history =
      try invocation.postgresLog?.history(of: entity) ?? invocation.logReader.history(of: entity)
    invocation.writeJSONOrText(json: { json(history) }, text: { text(history) })
    return .success
  }

  /// The history as text: a header, then one block per event, blocks separated by a blank
  /// line.
  static func text(_ history: EntityHistory) -> String {
    let stream = history.stream
    let count = history.events.count
    var text =
      "\(stream.name): \(count) event\(count == 1 ? "" : "s") "
      + "(entity \(ChangeText.escapingControlCharacters(stream.entityID)) of \(stream.modelName))\n"
    for event in history.events {
      text += "\n" + headline(event) + "\n"
      if event.isCreation, let after = event.after {
        for field in after.fields { text += "  " + ChangeText.field(field) + "\n" }
        continue
      }
      let changes = event.changes
      if event.type == ContactErased.eventType {
        text += "  personal data erased: its key destroyed, at every point of the log\n"
      } else if changes.isEmpty {
        text += "  (no change)\n"
      }
      for change in changes {
        text += "  " + ChangeText.change(change, model: stream.modelName) + "\n"
      }
    }
    return text
  }

  /// `seq 138  2026-11-02T10:30:00.000Z  ContactFavorited  by ana — "VIP donor"`, then
  /// `  (imported from <source>)` for an imported event.
  static func headline(_ event: EntityHistory.Event) -> String {
    var line = "seq \(event.sequence)  \(event.timestamp)  \(event.type)"
    let metadata = event.metadata
    if let actor = metadata.actor { line += "  by " + ChangeText.escapingControlCharacters(actor) }
    if let reason = metadata.reason {
      line += (metadata.actor == nil ? "  — \"" : " — \"")
      line += ChangeText.escapingControlCharacters(reason) + "\""
    }
    if let source = event.source {
      line += "  (imported from " + ChangeText.escapingControlCharacters(source) + ")"
    }
    return line
  }

  /// The history as the documented JSON object.
  static func json(_ history: EntityHistory) -> [UInt8] {
    var writer = JSONWriter(capacity: 1024)
    writer.beginObject()
    writer.member("stream", history.stream.name)
    writer.member("model", history.stream.modelName)
    writer.member("entity", history.stream.entityID)
    writer.member("events", objects: history.events) { writer, event in
      writer.member("seq", event.sequence)
      writer.member("version", event.version)
      writer.member("at", event.timestamp.description)
      writer.member("type", event.type)
      writer.member("actor", event.metadata.actor)
      writer.member("reason", event.metadata.reason)
      writer.member("correlation", event.metadata.correlation)
      writer.member("causation", event.metadata.causation)
      writer.member("source", event.source)
      writer.key("changes")
      writer.fieldDifferences(event.changes, nameKey: "field")
    }
    writer.endObject()
    return writer.bytes
  }
}

extension AuditError: CLIError {
  /// An entity that cannot be named is a problem with the input: 65.
  var exitCode: ExitCode { .invalidInput }

  var message: String { description }
}
