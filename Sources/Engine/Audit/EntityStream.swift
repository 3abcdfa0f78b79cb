import Events
import Projections

/// A stream of one of the five domains, with the read model that shows its entity and the
/// entity's id in that model: the stream name minus its category prefix (`contact-13` → `13`,
/// `animal-zoo-3` → `zoo-3`, `state-New York` → `New York`).
package struct EntityStream: Sendable, Equatable, Hashable {
  /// The stream's name.
  public var name: String
  /// The stream's category.
  public var kind: EntityKind
  /// The id of the stream's entity in its read model.
  public var entityID: String

  /// The stream `name`, or `nil` when its category is none of the five domains' or nothing
  /// follows the category's `-`.
  public init?(_ name: String) {
    guard let kind = EventVocabulary.entityKind(ofStream: name) else { return nil }
    // The category is ASCII: one scalar a byte.
    let entityID = String(name.unicodeScalars.dropFirst(kind.rawValue.utf8.count + 1))
    guard !entityID.isEmpty else { return nil }
    self.name = name
    self.kind = kind
    self.entityID = entityID
  }

  /// The stream of entity `id` of `kind`.
  public init(kind: EntityKind, entityID: String) {
    name = kind.streamName(for: entityID)
    self.kind = kind
    self.entityID = entityID
  }

  /// The categories an entity id is tried under, in this order.
  public static let categoryOrder: [EntityKind] = [
    .contact, .state, .observation, .animal, .location,
  ]

  /// The name of the read model that shows the entity (`contacts`).
  public var modelName: String { Self.modelName(of: kind) }

  /// The name of the read model that shows entities of `kind`.
  public static func modelName(of kind: EntityKind) -> String {
    switch kind {
    case .contact: ContactList.name
    case .state: ZipCodeList.name
    case .observation: ObservationList.name
    case .animal: AnimalCatalog.name
    case .location: LocationList.name
    }
  }
}
