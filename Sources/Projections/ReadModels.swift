import Events

/// All five read models, folded together: what replay keeps up to date.
///
/// `apply` hands each event to the one model of its domain (one `switch`; the other four never
/// see it). Each model can also be folded alone.
public struct ReadModels: Sendable, Equatable {
  /// The contacts app (`contacts`).
  public var contacts = ContactList()
  /// The states app (`zipcodes`).
  public var zipCodes = ZipCodeList()
  /// The field survey (`observations`).
  public var observations = ObservationList()
  /// The zoo (`animals`).
  public var animals = AnimalCatalog()
  /// The locations app (`locations`).
  public var locations = LocationList()

  /// Every model's type, in the order checkpoints store them.
  public static let modelTypes: [any ReadModel.Type] = [
    ContactList.self, ZipCodeList.self, ObservationList.self, AnimalCatalog.self,
    LocationList.self,
  ]

  /// Every model's name: `contacts`, `zipcodes`, `observations`, `animals`, `locations`.
  public static let modelNames: [String] = modelTypes.map { $0.name }

  /// The models before any event.
  public init() {}

  /// Folds one event into the model of its domain.
  /// - Complexity: O(1) on average.
  public mutating func apply(_ event: consuming DomainEvent, at context: EventContext) {
    // The whole event goes down: each model matches the nested case it needs, which binds only
    // the innermost payload instead of copying the domain's event enum out first.
    switch event {
    case .contact: contacts.apply(event, at: context)
    case .state: zipCodes.apply(event, at: context)
    case .observation: observations.apply(event, at: context)
    case .zoo: animals.apply(event, at: context)
    case .location: locations.apply(event, at: context)
    }
  }

  /// Checks every model's storage invariants; for tests.
  func checkInvariants() {
    contacts.checkInvariants()
    zipCodes.checkInvariants()
    observations.checkInvariants()
    animals.checkInvariants()
    locations.checkInvariants()
  }

  /// Every model, in `modelNames` order.
  public var models: [any ReadModel] { [contacts, zipCodes, observations, animals, locations] }

  /// The model named `name` (one of `modelNames`), or `nil`.
  public func model(named name: String) -> (any ReadModel)? {
    models.first { type(of: $0).name == name }
  }
}
