import Engine
import Events
import Projections

/// `replay state [<model>]`: the read models as they were at any point.
enum StateCommand {
  static let command = Command(
    name: "state",
    abstract: "Show read models as they were at any point in the log.",
    discussion: """
      Rebuilds the read model (all five without <model>) from the log, starting from the newest \
      checkpoint at or before the point, and prints it as a table, or as JSON with --json. \
      --as-of <time> means the state after every event whose time is at or before it. --id \
      shows one entity's detail (a contact's rows, an observation, a location and its nearest \
      neighbours, a state's zip codes, an animal).

      JSON: {"seq": <last event folded>, "<model>": <the model's view>, ...}; each model's \
      view is documented in docs/READMODELS.md.
      """,
    arguments: [
      Argument(
        name: "model",
        help: "contacts, zipcodes, observations, animals or locations (all when left out).",
        isOptional: true)
    ],
    options: [CommonOptions.log] + ReadOptions.point + [
      id, ReadOptions.locale, ReadOptions.timeZone, CommonOptions.json, follow,
      PostgresFollow.retryFor,
    ],
    run: run)

  static let id = TextOption(
    names: ["--id"], valueName: "id", help: "Show one entity's detail (needs <model>).")
  static let follow = Flag(
    ["-f", "--follow"],
    help:
      "Keep going: show the model again after each burst of new events (with --json, a new document a line), until Ctrl-C or a closed pipe."
  )

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let model = try invocation.optionalReadModelName()
    let id = invocation[StateCommand.id]
    if id != nil, model == nil {
      throw UsageError("'--id' needs a <model>, e.g. 'replay state contacts --id 13'")
    }
    let options = try invocation.viewOptions()
    let follow = invocation[StateCommand.follow]
    try invocation.refuseRetryWithoutFollow(follow)
    if follow, try invocation.replayPoint() != .end {
      throw UsageError(
        "'--follow' shows the end of the log as it grows: leave out '--at' and '--as-of'")
    }
    if follow,
      try invocation.followModelsInPostgres(show: { result, isFirst in
        if !isFirst, !invocation[CommonOptions.json] { invocation.terminal.write("\n") }
        try show(model: model, id: id, result: result, options: options, invocation)
        invocation.terminal.flush()
        return !invocation.terminal.hasOutputFailed
      })
    {
      return .success
    }
    var result = try invocation.rebuild(models: model.map { [$0] })
    try show(model: model, id: id, result: result, options: options, invocation)
    guard follow else { return .success }
    // Each new event is folded into the models already held; nothing is replayed again.
    let follower = LogFollower(
      path: invocation.logPath, from: .afterSequence(result.lastSequence))
    let interruption = FollowInterruption(stopping: follower)
    defer { interruption.cancel() }
    invocation.terminal.flush()
    // Standard output failed (or its pipe closed): following would never end well.
    if invocation.terminal.hasOutputFailed { return .success }
    // The follow holds the only copy of the models, so that each event is folded in place.
    let models = result.models
    result.models = ReadModels()
    try follower.follow(folding: models, through: result.lastSequence) { followed in
      if followed.newEventCount > 0 {
        var shown = result
        shown.models = followed.models
        shown.lastSequence = followed.sequence
        shown.lastFoldedSequence = followed.sequence
        if !invocation[CommonOptions.json] { invocation.terminal.write("\n") }
        try show(model: model, id: id, result: shown, options: options, invocation)
      }
      invocation.terminal.flush()
      return !invocation.terminal.hasOutputFailed
    }
    invocation.terminal.flush()
    return .success
  }

  /// Prints the models (or one entity) of `result`.
  static func show(
    model: String?, id: String?, result: Replayer.Result, options: ViewOptions,
    _ invocation: ParsedInvocation
  ) throws {
    let names = model.map { [$0] } ?? ReadModels.modelNames
    if let id, let model {
      _ = try detail(of: id, in: model, result: result, options: options, invocation)
      return
    }
    if invocation[CommonOptions.json] {
      var writer = JSONWriter(capacity: 1 << 16)
      writer.beginObject()
      writer.member("seq", result.lastFoldedSequence)
      if case .instant(let instant) = try invocation.replayPoint() {
        writer.member("asOf", instant.description)
      }
      for name in names {
        guard let readModel = result.models.model(named: name) else { continue }
        writer.key(name)
        readModel.encode(to: &writer, options: options)
      }
      writer.endObject()
      invocation.terminal.write(bytes: writer.bytes + [0x0A])
      return
    }
    var text = "\(invocation.logName) \(pointDescription(try invocation.replayPoint(), result))\n\n"
    for name in names {
      text += "== \(name) ==\n" + table(name, result.models, options: options) + "\n"
    }
    invocation.terminal.write(text)
  }

  /// `at seq 147`, or `as of <time> (every event at or before it; the last is seq 140)`.
  static func pointDescription(_ point: ReplayPoint, _ result: Replayer.Result) -> String {
    if case .instant(let instant) = point {
      let last =
        result.lastFoldedSequence > 0
        ? "the last is seq \(result.lastFoldedSequence)" : "there are none"
      return "as of \(instant) (every event at or before it; \(last))"
    }
    return "at seq \(result.lastSequence)"
  }

  static func table(_ name: String, _ models: ReadModels, options: ViewOptions) -> String {
    switch name {
    case ContactList.name: ModelTables.contacts(models.contacts)
    case ZipCodeList.name: ModelTables.zipCodes(models.zipCodes)
    case ObservationList.name: ModelTables.observations(models.observations, options: options)
    case AnimalCatalog.name: ModelTables.animals(models.animals)
    default: ModelTables.locations(models.locations)
    }
  }

  /// One entity: the model's detail view, or its fields.
  static func detail(
    of id: String, in model: String, result: Replayer.Result, options: ViewOptions,
    _ invocation: ParsedInvocation
  ) throws -> ExitCode {
    guard let readModel = result.models.model(named: model), let entry = readModel.entry(forID: id)
    else {
      throw InputError.invalid("\(model) has no '\(id)' at seq \(result.lastSequence)")
    }
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("seq", result.lastSequence)
        writer.member("model", model)
        writer.member("id", id)
        writer.key("fields")
        entry.writeFields(to: &writer)
      }
      return .success
    }
    var text: String?
    switch model {
    case ContactList.name:
      text = (try? ContactID(id)).flatMap { result.models.contacts.row(for: $0) }.map(
        ModelTables.contactDetail)
    case ObservationList.name:
      text = (try? ObservationID(id)).flatMap {
        result.models.observations.row(for: $0, options: options)
      }
      .map(ModelTables.observationDetail)
    case LocationList.name:
      if let locationID = try? LocationID(id),
        let location = result.models.locations.location(locationID)
      {
        var lines =
          "\(location.name) (\(location.id.rawValue)) at \(location.coordinate.latitude), \(location.coordinate.longitude)\n"
        for (rank, nearby) in (result.models.locations.nearest(to: locationID) ?? []).enumerated() {
          lines += "  \(rank + 1). \(nearby.name) — \(nearby.distanceText) mi\n"
        }
        text = lines
      }
    default:
      break
    }
    if text == nil {
      var table = TextTable([.init(title: "FIELD"), .init(title: "VALUE", maximumWidth: 100)])
      for field in entry.fields { table.append([field.name, field.value]) }
      text = table.render()
    }
    invocation.terminal.write(text ?? "")
    return .success
  }
}
