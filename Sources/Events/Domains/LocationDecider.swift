/// What users and importers ask of the locations domain.
public enum LocationCommand: DomainCommand {
  /// Add a location under a new id.
  case addLocation(LocationRecord)
  /// Give a location a new name.
  case renameLocation(id: LocationID, name: String)
  /// Move a location to a new point.
  case moveLocation(id: LocationID, to: Coordinate)
  /// Remove a location.
  case removeLocation(id: LocationID)
  /// Import the source's version of a feature (see `LocationDecider`).
  case importLocation(LocationRecord, source: String)

  /// The location the command acts on.
  public var id: LocationID {
    switch self {
    case .addLocation(let record): record.id
    case .renameLocation(let id, _): id
    case .moveLocation(let id, _): id
    case .removeLocation(let id): id
    case .importLocation(let record, _): record.id
    }
  }

  public var streamName: String { id.streamName }

  public var name: String {
    switch self {
    case .addLocation: "addLocation"
    case .renameLocation: "renameLocation"
    case .moveLocation: "moveLocation"
    case .removeLocation: "removeLocation"
    case .importLocation: "importLocation"
    }
  }
}

/// The locations domain's rules.
///
/// - Coordinates are valid by construction (`Coordinate`). Names must not be empty or only
///   white space.
/// - Ids are unique: adding a location whose stream has events (even a removed one) is an error.
/// - Rename, move and remove need a location that exists and was not removed; a rename to the
///   same name or a move to the same point appends nothing.
/// - Import (three-way): a new id appends `LocationAdded` with its `source`; a record equal to
///   the last imported version appends nothing; otherwise `LocationRenamed` if the source's name
///   changed and `LocationMoved` if its point changed, each with `source`, even when the
///   location already holds the new value (so `lastImported` stays exactly the source's
///   version). A user's rename stays when only the point changed in the source, and the other
///   way round; a removed location stays removed.
public enum LocationDecider: Decider {
  /// The fold of one location's stream.
  public struct State: DeciderState {
    /// The location as it is now; `nil` until added.
    public var record: LocationRecord?
    /// Whether it was removed.
    public var isRemoved: Bool
    /// The source's version as last imported; `nil` if never imported.
    public var lastImported: LocationRecord?

    public init(
      record: LocationRecord? = nil, isRemoved: Bool = false, lastImported: LocationRecord? = nil
    ) {
      self.record = record
      self.isRemoved = isRemoved
      self.lastImported = lastImported
    }

    public static let initial = State()

    public mutating func apply(_ event: LocationEvent) {
      switch event {
      case .added(let added):
        record = added.record
        if added.source != nil { lastImported = added.record }
      case .renamed(let renamed):
        change(importing: renamed.source != nil) { $0.name = renamed.name }
      case .moved(let moved):
        change(importing: moved.source != nil) { $0.coordinate = moved.coordinate }
      case .removed:
        if record != nil { isRemoved = true }
      }
    }

    /// Applies `change` to the record, when there is one, and, for a change an import made, to
    /// the source's version too (the record as it was, when it was never imported).
    private mutating func change(importing: Bool, _ change: (inout LocationRecord) -> Void) {
      guard var changed = record else { return }
      if importing {
        var imported = lastImported ?? changed
        change(&imported)
        lastImported = imported
      }
      change(&changed)
      record = changed
    }
  }

  public static func decision(
    _ command: LocationCommand, _ state: State
  ) throws(EventsError) -> Decision<LocationEvent> {
    switch command {
    case .addLocation(let record):
      try checkName(record.name, command)
      guard state.record == nil else {
        throw EventsError.entityAlreadyExists(kind: .location, id: record.id.rawValue)
      }
      return .append([.added(LocationAdded(record: record))])

    case .renameLocation(let id, let name):
      try checkName(name, command)
      let current = try existing(id, state)
      guard current.name != name else {
        return .noChange("location '\(id)' is already named '\(name)'")
      }
      return .append([.renamed(LocationRenamed(id: id, name: name))])

    case .moveLocation(let id, let coordinate):
      let current = try existing(id, state)
      guard current.coordinate != coordinate else {
        return .noChange("location '\(id)' is already at \(coordinate)")
      }
      return .append([.moved(LocationMoved(id: id, coordinate: coordinate))])

    case .removeLocation(let id):
      _ = try existing(id, state)
      return .append([.removed(LocationRemoved(id: id))])

    case .importLocation(let record, let source):
      try checkName(record.name, command)
      guard let current = state.record else {
        return .append([.added(LocationAdded(record: record, source: source))])
      }
      if state.isRemoved {
        return .noChange("location '\(record.id)' was removed; the import leaves it removed")
      }
      let base = state.lastImported ?? current
      var events: [LocationEvent] = []
      if base.name != record.name {
        events.append(.renamed(LocationRenamed(id: record.id, name: record.name, source: source)))
      }
      if base.coordinate != record.coordinate {
        events.append(
          .moved(LocationMoved(id: record.id, coordinate: record.coordinate, source: source)))
      }
      guard !events.isEmpty else {
        return .noChange("location '\(record.id)' is unchanged since its last import")
      }
      // Equal to the current state (an export of this log imported back): the changes since
      // the last import are already there, so appending them again would be redundant.
      if record == current {
        return .noChange("location '\(record.id)' is already as the source has it")
      }
      return .append(events)
    }
  }

  private static func checkName(_ name: String, _ command: LocationCommand) throws(EventsError) {
    try command.checkNotBlank(name, field: "name", expected: LocationRecord.nameExpectation)
  }

  private static func existing(
    _ id: LocationID, _ state: State
  ) throws(EventsError) -> LocationRecord {
    try EntityKind.location.existing(state.record, id: id.rawValue, isRemoved: state.isRemoved)
  }

  public static func domainEvent(_ event: LocationEvent) -> DomainEvent { .location(event) }

  public static func event(from event: DomainEvent) -> LocationEvent? {
    if case .location(let event) = event { return event }
    return nil
  }
}
