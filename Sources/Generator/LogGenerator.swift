import Engine
import Events

/// Makes up a realistic, valid log of the five domains, deterministically from a seed: the same
/// seed always gives the same events, in the same order, with the same metadata.
///
/// The events are what users of the five apps do, in roughly these shares (`mix`):
///
/// | domain | events | share |
/// |---|---|---|
/// | contacts | `ContactAdded` (every field, about 500 bytes), `ContactFavorited` / `ContactUnfavorited` (toggles of existing contacts), `ContactUpdated` | 2 %, 56 %, 4.5 % |
/// | states | `StateAdded` (56 states and territories, once each), `ZipCodeAdded`, `ZipCodeModified` (an existing zip into one the state lacks), `ZipCodeRemoved` | 3.5 %, 8 %, 1.2 % |
/// | zoo | `AnimalImported` (real Taipei Zoo records, 1-3 KB of Chinese text; some re-imported with changes), `AnimalInserted`, `AnimalRemoved` | 1 %, 0.5 %, 0.3 % |
/// | locations | `LocationAdded` (coordinates anywhere, poles and antimeridian included), `LocationMoved`, `LocationRenamed`, `LocationRemoved` | 1 %, 8 %, 1.2 %, 0.2 % |
/// | observations | `ObservationRecorded` (all seven classifications), `ObservationRevised`, `ObservationRemoved` | 3 %, 9 %, 0.6 % |
///
/// Every event is one the domain's Decider would produce for a user's command against the
/// entity's state at that point: favourites alternate, zip codes are modified only into codes
/// the state lacks, removed entities are never touched again, an update carries exactly the
/// fields that change. Entity counts grow with the log but stay moderate (about 2 % of events
/// add a contact, 1 % a location), so read models stay small next to the log.
///
/// The generator keeps a few compact numbers per entity and derives the rest (names, phone
/// numbers, addresses) from them when needed, so memory grows with the number of entities, not
/// with the number of events.
package struct LogGenerator: Sendable {
  /// One generated event and who made it.
  public struct Event: Sendable, Equatable {
    /// What happened.
    public var event: DomainEvent
    /// The audit fields: always an actor, sometimes a reason.
    public var metadata: EventMetadata
  }

  /// The seed the events are made from.
  public let seed: String
  /// Whether a stream already holds events (of a log being appended to): new entities get other
  /// ids.
  let isStreamTaken: @Sendable (String) -> Bool
  var random: GeneratorRandom

  var contacts: [GeneratedContact] = []
  var nextContactNumber = 1

  /// One per `GeneratorText.states`, in that order.
  var states: [GeneratedState]
  /// The indexes in `states` of the states added so far.
  var addedStates: [Int] = []

  var importedAnimals: [GeneratedAnimal] = []
  var liveImportedAnimals = EntityPool()
  var insertedAnimalNumbers: [Int] = []
  var liveInsertedAnimals = EntityPool()
  var nextAnimalSourceID = 1
  var nextInsertedAnimalNumber = 1

  var locations: [GeneratedLocation] = []
  var liveLocations = EntityPool()
  var nextLocationNumber = 1

  var observations: [GeneratedObservation] = []
  var liveObservations = EntityPool()
  var observationIDs: Set<String> = []
  var nextObservationNumber = 1

  /// A generator of the events `seed` stands for.
  /// - Parameters:
  ///   - seed: any text; the same seed gives the same events.
  ///   - isStreamTaken: whether a stream already has events, for appending to a log that is not
  ///     empty: new entities skip ids whose streams are taken. The default takes none.
  public init(seed: String, isStreamTaken: @escaping @Sendable (String) -> Bool = { _ in false }) {
    self.seed = seed
    self.isStreamTaken = isStreamTaken
    random = GeneratorRandom(seed: "replay generate/" + seed)
    states = GeneratorText.states.map { _ in GeneratedState() }
  }

  /// The next event.
  public mutating func next() -> Event {
    let action = nextAction()
    let event =
      perform(action) ?? perform(action.creation)
      ?? { preconditionFailure("creating an entity never fails (\(action.creation))") }()
    return Event(event: event, metadata: metadata(for: event))
  }

  // MARK: The mix

  /// What a generated event does. Actions that need an existing entity fall back to their
  /// domain's `creation` when there is none.
  enum Action: CaseIterable {
    case addContact, toggleFavorite, updateContact
    case addZipCode, modifyZipCode, removeZipCode
    case importAnimal, insertAnimal, removeAnimal
    case addLocation, moveLocation, renameLocation, removeLocation
    case recordObservation, reviseObservation, removeObservation

    /// The action that creates an entity of the same domain (adding a zip code adds its state
    /// first when the state is new).
    var creation: Action {
      switch self {
      case .addContact, .toggleFavorite, .updateContact: .addContact
      case .addZipCode, .modifyZipCode, .removeZipCode: .addZipCode
      case .importAnimal, .insertAnimal, .removeAnimal: .importAnimal
      case .addLocation, .moveLocation, .renameLocation, .removeLocation: .addLocation
      case .recordObservation, .reviseObservation, .removeObservation: .recordObservation
      }
    }
  }

  /// How often each action is chosen, in events per thousand (they add up to 1000).
  static let mix: [(action: Action, perMille: Int)] = [
    (.addContact, 20), (.toggleFavorite, 560), (.updateContact, 45),
    (.addZipCode, 35), (.modifyZipCode, 80), (.removeZipCode, 12),
    (.importAnimal, 10), (.insertAnimal, 5), (.removeAnimal, 3),
    (.addLocation, 10), (.moveLocation, 80), (.renameLocation, 12), (.removeLocation, 2),
    (.recordObservation, 30), (.reviseObservation, 90), (.removeObservation, 6),
  ]

  /// `mix` as running totals, for drawing an action with one random number.
  private static let cumulativeMix: [(upTo: Int, action: Action)] = {
    var total = 0
    return mix.map { entry in
      total += entry.perMille
      return (total, entry.action)
    }
  }()

  private mutating func nextAction() -> Action {
    let draw = random.below(1000)
    for entry in Self.cumulativeMix where draw < entry.upTo { return entry.action }
    return .toggleFavorite
  }

  /// The event `action` makes, or `nil` when it needs an entity there is none of.
  private mutating func perform(_ action: Action) -> DomainEvent? {
    switch action {
    case .addContact: addContact()
    case .toggleFavorite: toggleFavorite()
    case .updateContact: updateContact()
    case .addZipCode: addZipCode()
    case .modifyZipCode: modifyZipCode()
    case .removeZipCode: removeZipCode()
    case .importAnimal: importAnimal()
    case .insertAnimal: insertAnimal()
    case .removeAnimal: removeAnimal()
    case .addLocation: addLocation()
    case .moveLocation: moveLocation()
    case .renameLocation: renameLocation()
    case .removeLocation: removeLocation()
    case .recordObservation: recordObservation()
    case .reviseObservation: reviseObservation()
    case .removeObservation: removeObservation()
    }
  }

  // MARK: Metadata

  /// Who made `event` (one of the domain's usual people), for three events in five (the
  /// others come from apps that record no user), and, for one in ten, why.
  private mutating func metadata(for event: DomainEvent) -> EventMetadata {
    let type = event.eventType
    if type == AnimalImported.eventType {
      return EventMetadata(actor: "zoo-sync", reason: "nightly sync of the Taipei Zoo open data")
    }
    var metadata = EventMetadata()
    if random.chance(0.6) {
      metadata.actor = random.element(of: GeneratorText.actors[event.entityKind] ?? ["admin"])
    }
    if random.chance(0.1), let reasons = GeneratorText.reasons[type] {
      metadata.reason = random.element(of: reasons)
    }
    return metadata
  }

  // MARK: Helpers

  /// The first number from `start` on whose entity's stream is free, for `kind` entities whose
  /// id is `id(number)`.
  func firstFreeNumber(
    from start: Int, kind: EntityKind, id: (Int) -> String
  ) -> Int {
    var number = start
    while isStreamTaken(kind.streamName(for: id(number))) { number += 1 }
    return number
  }

  /// `value` in decimal, padded with zeros to `digits` digits.
  static func padded(_ value: Int, digits: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }

  /// A value the generator built from valid parts; `nil` would be a bug in the generator.
  static func valid<Value>(_ value: Value?, _ what: @autoclosure () -> String) -> Value {
    guard let value else { preconditionFailure("the generator made an invalid \(what())") }
    return value
  }
}
