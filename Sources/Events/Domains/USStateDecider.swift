/// What users and importers ask of the states domain.
public enum USStateCommand: DomainCommand {
  /// Add a state with no zip codes.
  case addState(StateName)
  /// Append a zip code to a state's list.
  case addZipCode(state: StateName, zipCode: ZipCode)
  /// Change one of a state's zip codes into another, keeping its place.
  case modifyZipCode(state: StateName, from: ZipCode, to: ZipCode)
  /// Remove a zip code from a state's list.
  case removeZipCode(state: StateName, zipCode: ZipCode)
  /// Import the source's version of a state: its name and zip codes (see `USStateDecider`).
  case importState(StateName, zipCodes: [ZipCode], source: String)

  /// The state the command acts on.
  public var state: StateName {
    switch self {
    case .addState(let state): state
    case .addZipCode(let state, _): state
    case .modifyZipCode(let state, _, _): state
    case .removeZipCode(let state, _): state
    case .importState(let state, _, _): state
    }
  }

  public var streamName: String { state.streamName }

  public var name: String {
    switch self {
    case .addState: "addState"
    case .addZipCode: "addZipCode"
    case .modifyZipCode: "modifyZipCode"
    case .removeZipCode: "removeZipCode"
    case .importState: "importState"
    }
  }
}

/// The states domain's rules.
///
/// - A state must be added (`StateAdded`) before its zip codes; adding an existing state is an
///   error.
/// - Zip codes are valid by construction (`ZipCode`: 5 digits or ZIP+4; empty or malformed text
///   never becomes one) and unique within a state: adding one the state has, modifying one it
///   does not have, modifying into one it has (including into itself) and removing one it does
///   not have are errors naming the state and the zip codes.
/// - The same zip code may belong to several states: there is no check across states.
/// - Import (three-way): a missing state is added with every zip code of the source, in source
///   order, duplicates dropped, each carrying `source`. For an existing state, the zip codes new
///   in the source (not in the last imported version) are added, except those the state already
///   has; zip codes the source dropped are kept (removing is the user's call); user changes stay.
public enum USStateDecider: Decider {
  /// The fold of one state's stream.
  public struct State: DeciderState {
    /// The state's name; `nil` until added.
    public var name: StateName?
    /// The zip codes, in list order.
    public private(set) var zipCodes: [ZipCode]
    /// The zip codes every import so far has brought (the last imported version's).
    public private(set) var lastImportedZipCodes: Set<ZipCode>
    /// The same zip codes as `zipCodes`, for constant-time membership.
    private var zipCodeSet: Set<ZipCode>

    public init() {
      name = nil
      zipCodes = []
      lastImportedZipCodes = []
      zipCodeSet = []
    }

    public static let initial = State()

    /// Whether the state lists `zipCode`.
    public func contains(_ zipCode: ZipCode) -> Bool { zipCodeSet.contains(zipCode) }

    public mutating func apply(_ event: USStateEvent) {
      switch event {
      case .stateAdded(let added):
        name = added.state
      case .zipCodeAdded(let added):
        if zipCodeSet.insert(added.zipCode).inserted { zipCodes.append(added.zipCode) }
        if added.source != nil { lastImportedZipCodes.insert(added.zipCode) }
      case .zipCodeModified(let modified):
        guard let index = zipCodes.firstIndex(of: modified.from) else { return }
        zipCodeSet.remove(modified.from)
        if zipCodeSet.insert(modified.to).inserted {
          zipCodes[index] = modified.to
        } else {
          zipCodes.remove(at: index)
        }
      case .zipCodeRemoved(let removed):
        guard zipCodeSet.remove(removed.zipCode) != nil else { return }
        zipCodes.removeAll { $0 == removed.zipCode }
      }
    }
  }

  public static func decision(
    _ command: USStateCommand, _ state: State
  ) throws(EventsError) -> Decision<USStateEvent> {
    switch command {
    case .addState(let name):
      guard state.name == nil else {
        throw EventsError.entityAlreadyExists(kind: .state, id: name.rawValue)
      }
      return .append([.stateAdded(StateAdded(state: name))])

    case .addZipCode(let name, let zipCode):
      try checkExists(name, state)
      guard !state.contains(zipCode) else {
        throw EventsError.zipCodeAlreadyInState(
          state: name.rawValue, zipCode: zipCode.rawValue, replacing: nil)
      }
      return .append([.zipCodeAdded(ZipCodeAdded(state: name, zipCode: zipCode))])

    case .modifyZipCode(let name, let from, let to):
      try checkExists(name, state)
      guard state.contains(from) else {
        throw EventsError.zipCodeNotInState(
          state: name.rawValue, zipCode: from.rawValue, replacement: to.rawValue)
      }
      guard !state.contains(to) else {
        throw EventsError.zipCodeAlreadyInState(
          state: name.rawValue, zipCode: to.rawValue, replacing: from.rawValue)
      }
      return .append([.zipCodeModified(ZipCodeModified(state: name, from: from, to: to))])

    case .removeZipCode(let name, let zipCode):
      try checkExists(name, state)
      guard state.contains(zipCode) else {
        throw EventsError.zipCodeNotInState(
          state: name.rawValue, zipCode: zipCode.rawValue, replacement: nil)
      }
      return .append([.zipCodeRemoved(ZipCodeRemoved(state: name, zipCode: zipCode))])

    case .importState(let name, let zipCodes, let source):
      var seen: Set<ZipCode> = []
      let sourceZipCodes = zipCodes.filter { seen.insert($0).inserted }
      guard state.name != nil else {
        let added = sourceZipCodes.map {
          USStateEvent.zipCodeAdded(ZipCodeAdded(state: name, zipCode: $0, source: source))
        }
        return .append([.stateAdded(StateAdded(state: name, source: source))] + added)
      }
      let newInSource = sourceZipCodes.filter { !state.lastImportedZipCodes.contains($0) }
      guard !newInSource.isEmpty else {
        return .noChange("state '\(name)' has no zip codes new since its last import")
      }
      let events = newInSource.filter { !state.contains($0) }.map {
        USStateEvent.zipCodeAdded(ZipCodeAdded(state: name, zipCode: $0, source: source))
      }
      guard !events.isEmpty else {
        return .noChange("state '\(name)' already has every zip code new in the source")
      }
      return .append(events)
    }
  }

  private static func checkExists(_ name: StateName, _ state: State) throws(EventsError) {
    _ = try EntityKind.state.existing(state.name, id: name.rawValue)
  }

  public static func domainEvent(_ event: USStateEvent) -> DomainEvent { .state(event) }

  public static func event(from event: DomainEvent) -> USStateEvent? {
    if case .state(let event) = event { return event }
    return nil
  }
}
