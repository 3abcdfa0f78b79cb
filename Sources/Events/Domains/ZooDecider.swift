/// What users and importers ask of the zoo.
public enum ZooCommand: DomainCommand {
  /// Insert an animal under `id` (`user-<n>`, chosen by the engine). An empty `picturePath`
  /// means none.
  case insertAnimal(id: AnimalID, name: String, description: String, picturePath: String?)
  /// Remove an animal, imported or inserted.
  case removeAnimal(id: AnimalID)
  /// Import the source's version of a record (see `ZooDecider`).
  case importAnimal(AnimalRecord, source: String)

  /// The animal the command acts on.
  public var id: AnimalID {
    switch self {
    case .insertAnimal(let id, _, _, _): id
    case .removeAnimal(let id): id
    case .importAnimal(let record, _): record.id
    }
  }

  public var streamName: String { id.streamName }

  public var name: String {
    switch self {
    case .insertAnimal: "insertAnimal"
    case .removeAnimal: "removeAnimal"
    case .importAnimal: "importAnimal"
    }
  }
}

/// The zoo's rules.
///
/// - Inserting needs a `user-<n>` id whose stream has no events, and a name that is not empty
///   or only white space.
/// - Removing needs an animal that exists and was not removed.
/// - Import: a new record appends `AnimalImported` with its `source`; a record equal to the last
///   imported version appends nothing; a changed record appends `AnimalImported` again with the
///   whole new version (users cannot edit imported animals, so nothing of theirs is lost); a
///   removed animal stays removed.
public enum ZooDecider: Decider {
  /// The fold of one animal's stream.
  public struct State: DeciderState {
    /// The source's version as last imported (for an imported animal, also its current one).
    public var lastImported: AnimalRecord?
    /// The insertion (for an inserted animal).
    public var inserted: AnimalInserted?
    /// Whether it was removed.
    public var isRemoved: Bool

    public init(
      lastImported: AnimalRecord? = nil, inserted: AnimalInserted? = nil, isRemoved: Bool = false
    ) {
      self.lastImported = lastImported
      self.inserted = inserted
      self.isRemoved = isRemoved
    }

    public static let initial = State()

    /// Whether the stream holds an animal (removed or not).
    public var exists: Bool { lastImported != nil || inserted != nil }

    public mutating func apply(_ event: ZooEvent) {
      switch event {
      case .imported(let imported): lastImported = imported.record
      case .inserted(let inserted): self.inserted = inserted
      case .removed: if exists { isRemoved = true }
      }
    }
  }

  public static func decision(
    _ command: ZooCommand, _ state: State
  ) throws(EventsError) -> Decision<ZooEvent> {
    switch command {
    case .insertAnimal(let id, let name, let description, let picturePath):
      guard id.isInserted else {
        throw EventsError.invalidCommand(
          command: command.name, field: "id", expected: AnimalInserted.insertedExpectation,
          found: "'\(id)'")
      }
      try command.checkNotBlank(
        name, field: "name", expected: "a name that is not empty or only white space")
      let path = picturePath.flatMap { $0.isEmpty ? nil : $0 }
      let inserted = AnimalInserted(
        id: id, name: name, description: description, picturePath: path)
      // The same insertion again (an exported catalogue imported back) changes nothing.
      if state.inserted == inserted, !state.isRemoved {
        return .noChange("animal '\(id)' is already there as inserted")
      }
      guard !state.exists else {
        throw EventsError.entityAlreadyExists(kind: .animal, id: id.rawValue)
      }
      return .append([.inserted(inserted)])

    case .removeAnimal(let id):
      guard state.exists else { throw EventsError.unknownEntity(kind: .animal, id: id.rawValue) }
      guard !state.isRemoved else {
        throw EventsError.entityRemoved(kind: .animal, id: id.rawValue)
      }
      return .append([.removed(AnimalRemoved(id: id))])

    case .importAnimal(let record, let source):
      if state.isRemoved {
        return .noChange("animal '\(record.id)' was removed; the import leaves it removed")
      }
      if state.lastImported == record {
        return .noChange("animal '\(record.id)' is unchanged since its last import")
      }
      return .append([.imported(AnimalImported(record: record, source: source))])
    }
  }

  public static func domainEvent(_ event: ZooEvent) -> DomainEvent { .zoo(event) }

  public static func event(from event: DomainEvent) -> ZooEvent? {
    if case .zoo(let event) = event { return event }
    return nil
  }
}
