import Events

/// The five kinds of source an import reads, one per domain.
///
/// The raw value is the word typed on the command line (`replay import contacts ...`).
package enum ImportKind: String, Sendable, Equatable, Hashable, CaseIterable {
  /// The field survey's observations (`field-observations.json`).
  case observations
  /// States and their zip codes (a property list or JSON).
  case states
  /// The Taipei Zoo open-data API's animals (`taipei-zoo-animals.json`).
  case zoo
  /// A GeoJSON `FeatureCollection` of named points (`acmeaom-locations.json`).
  case locations
  /// A JSON array of contacts (`contacts-v3.json`).
  case contacts

  /// What one record of this kind is called in messages (`contact` in `contact record 3`).
  public var recordNoun: String {
    switch self {
    case .observations: "observation"
    case .states: "state"
    case .zoo: "animal"
    case .locations: "location"
    case .contacts: "contact"
    }
  }

  /// `count` records of this kind, for messages: `1 contact record`, `18 contact records`.
  public func records(_ count: Int) -> String {
    "\(count) \(recordNoun) record\(count == 1 ? "" : "s")"
  }

  /// What a part of a record that can be left out on its own is called: `zip code` (states
  /// are the only kind with such parts).
  public func entryNoun(_ count: Int) -> String {
    let noun = self == .states ? "zip code" : "entry"
    guard count != 1 else { return noun }
    return self == .states ? "zip codes" : "entries"
  }
}

/// The import command a source record becomes: one case per domain, each holding the domain's
/// command (always its `import...` case).
package enum RecordCommand: Sendable, Equatable {
  case observation(ObservationCommand)
  case state(USStateCommand)
  case animal(ZooCommand)
  case location(LocationCommand)
  case contact(ContactCommand)

  /// The stream the command decides on.
  public var streamName: String {
    switch self {
    case .observation(let command): command.streamName
    case .state(let command): command.streamName
    case .animal(let command): command.streamName
    case .location(let command): command.streamName
    case .contact(let command): command.streamName
    }
  }
}

/// A Decider whose commands an import can carry, and whose state says whether a user removed
/// the entity (so a record the import leaves alone is reported as kept removed, not unchanged).
protocol ImportDecider: Decider {
  /// This domain's command inside `command`, or `nil` for another domain's; with
  /// `includeErased`, the command that brings an erased entity back (contacts).
  static func command(from command: RecordCommand, includeErased: Bool) -> Command?
  /// Whether the stream's entity was removed by a user.
  static func isRemoved(_ state: State) -> Bool
}

/// A domain state that records whether a user removed the entity.
protocol RemovableState {
  var isRemoved: Bool { get }
}

extension ObservationDecider.State: RemovableState {}
extension ZooDecider.State: RemovableState {}
extension LocationDecider.State: RemovableState {}

extension ImportDecider where State: RemovableState {
  static func isRemoved(_ state: State) -> Bool { state.isRemoved }
}

extension ObservationDecider: ImportDecider {
  static func command(from command: RecordCommand, includeErased: Bool) -> ObservationCommand? {
    if case .observation(let command) = command { return command }
    return nil
  }
}

extension USStateDecider: ImportDecider {
  static func command(from command: RecordCommand, includeErased: Bool) -> USStateCommand? {
    if case .state(let command) = command { return command }
    return nil
  }

  /// States are never removed; a zip code a user removed simply stays out.
  static func isRemoved(_ state: State) -> Bool { false }
}

extension ZooDecider: ImportDecider {
  static func command(from command: RecordCommand, includeErased: Bool) -> ZooCommand? {
    if case .animal(let command) = command { return command }
    return nil
  }
}

extension LocationDecider: ImportDecider {
  static func command(from command: RecordCommand, includeErased: Bool) -> LocationCommand? {
    if case .location(let command) = command { return command }
    return nil
  }
}

extension ContactDecider: ImportDecider {
  static func command(from command: RecordCommand, includeErased: Bool) -> ContactCommand? {
    guard case .contact(let command) = command else { return nil }
    if includeErased, case .importContact(let record, let source) = command {
      return .importErasedContact(record, source: source)
    }
    return command
  }

  /// An erased contact is reported with the removed entities: the import leaves it erased.
  static func isRemoved(_ state: State) -> Bool { state.isErased }
}
