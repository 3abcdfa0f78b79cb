/// What users and importers ask of the field survey.
public enum ObservationCommand: DomainCommand {
  /// Record a new observation under `id` (chosen by the engine).
  case recordObservation(id: ObservationID, ObservationRecord)
  /// Change some fields of an observation; `nil` leaves a field as it is.
  case reviseObservation(
    id: ObservationID, classification: Classification? = nil, title: String? = nil,
    description: String? = nil, date: Timestamp? = nil)
  /// Remove an observation.
  case removeObservation(id: ObservationID)
  /// Import the source's version of a record (see `ObservationDecider` for the rules).
  case importObservation(id: ObservationID, ObservationRecord, source: String)

  /// Imports `record` from `source` under the id derived from the source, title and date
  /// (`ObservationID.derived(source:title:date:)`), so re-importing finds the same stream.
  public static func importing(_ record: ObservationRecord, source: String) -> ObservationCommand {
    .importObservation(
      id: .derived(source: source, title: record.title, date: record.date), record,
      source: source)
  }

  /// The observation the command acts on.
  public var id: ObservationID {
    switch self {
    case .recordObservation(let id, _): id
    case .reviseObservation(let id, _, _, _, _): id
    case .removeObservation(let id): id
    case .importObservation(let id, _, _): id
    }
  }

  public var streamName: String { id.streamName }

  public var name: String {
    switch self {
    case .recordObservation: "recordObservation"
    case .reviseObservation: "reviseObservation"
    case .removeObservation: "removeObservation"
    case .importObservation: "importObservation"
    }
  }
}

/// The field survey's rules.
///
/// - Titles must not be empty or only white space (on record, revise and import).
/// - Revise and remove need an observation that exists and was not removed; a revision that
///   changes nothing appends nothing.
/// - Import (three-way): a new id records the observation with its `source`; a record equal to
///   the last imported version appends nothing; a changed record appends `ObservationRevised`
///   with only the fields the source changed (user revisions of other fields stay); a removed
///   observation stays removed.
public enum ObservationDecider: Decider {
  /// The fold of one observation's stream.
  public struct State: DeciderState {
    /// The observation as it is now; `nil` until recorded.
    public var record: ObservationRecord?
    /// Whether it was removed.
    public var isRemoved: Bool
    /// The source's version as last imported; `nil` if never imported.
    public var lastImported: ObservationRecord?

    public init(
      record: ObservationRecord? = nil, isRemoved: Bool = false,
      lastImported: ObservationRecord? = nil
    ) {
      self.record = record
      self.isRemoved = isRemoved
      self.lastImported = lastImported
    }

    public static let initial = State()

    public mutating func apply(_ event: ObservationEvent) {
      switch event {
      case .recorded(let recorded):
        record = recorded.record
        if recorded.source != nil { lastImported = recorded.record }
      case .revised(let revision):
        guard let current = record else { return }
        record = revision.applied(to: current)
        if revision.source != nil { lastImported = revision.applied(to: lastImported ?? current) }
      case .removed:
        if record != nil { isRemoved = true }
      }
    }
  }

  public static func decision(
    _ command: ObservationCommand, _ state: State
  ) throws(EventsError) -> Decision<ObservationEvent> {
    switch command {
    case .recordObservation(let id, let record):
      try checkTitle(record.title, command)
      guard state.record == nil else {
        throw EventsError.entityAlreadyExists(kind: .observation, id: id.rawValue)
      }
      return .append([.recorded(ObservationRecorded(id: id, record: record))])

    case .reviseObservation(let id, let classification, let title, let description, let date):
      if let title { try checkTitle(title, command) }
      let current = try existing(id, state)
      var revised = current
      if let classification { revised.classification = classification }
      if let title { revised.title = title }
      if let description { revised.description = description }
      if let date { revised.date = date }
      guard let revision = ObservationRevised.between(current, revised, id: id, source: nil) else {
        return .noChange("observation '\(id)' already has these values")
      }
      return .append([.revised(revision)])

    case .removeObservation(let id):
      _ = try existing(id, state)
      return .append([.removed(ObservationRemoved(id: id))])

    case .importObservation(let id, let record, let source):
      try checkTitle(record.title, command)
      guard let current = state.record else {
        return .append([.recorded(ObservationRecorded(id: id, record: record, source: source))])
      }
      if state.isRemoved {
        return .noChange("observation '\(id)' was removed; the import leaves it removed")
      }
      let base = state.lastImported ?? current
      guard let revision = ObservationRevised.between(base, record, id: id, source: source) else {
        return .noChange("observation '\(id)' is unchanged since its last import")
      }
      // Equal to the current state (an export of this log imported back): the changes since
      // the last import are already there, so appending them again would be redundant.
      if record == current {
        return .noChange("observation '\(id)' is already as the source has it")
      }
      return .append([.revised(revision)])
    }
  }

  private static func checkTitle(
    _ title: String, _ command: ObservationCommand
  ) throws(EventsError) {
    try command.checkNotBlank(title, field: "title", expected: ObservationRecord.titleExpectation)
  }

  private static func existing(
    _ id: ObservationID, _ state: State
  ) throws(EventsError) -> ObservationRecord {
    try EntityKind.observation.existing(
      state.record, id: id.rawValue, isRemoved: state.isRemoved)
  }

  public static func domainEvent(_ event: ObservationEvent) -> DomainEvent { .observation(event) }

  public static func event(from event: DomainEvent) -> ObservationEvent? {
    if case .observation(let event) = event { return event }
    return nil
  }
}
