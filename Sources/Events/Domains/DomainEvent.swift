/// Every event of the five domains: one case per domain, each holding that domain's event enum
/// (one case per event type).
public enum DomainEvent: Sendable, Equatable, Hashable {
  case observation(ObservationEvent)
  case state(USStateEvent)
  case zoo(ZooEvent)
  case location(LocationEvent)
  case contact(ContactEvent)

  /// The typed payload inside.
  public var payload: any EventPayload {
    switch self {
    case .observation(.recorded(let event)): event
    case .observation(.revised(let event)): event
    case .observation(.removed(let event)): event
    case .state(.stateAdded(let event)): event
    case .state(.zipCodeAdded(let event)): event
    case .state(.zipCodeModified(let event)): event
    case .state(.zipCodeRemoved(let event)): event
    case .zoo(.imported(let event)): event
    case .zoo(.inserted(let event)): event
    case .zoo(.removed(let event)): event
    case .location(.added(let event)): event
    case .location(.renamed(let event)): event
    case .location(.moved(let event)): event
    case .location(.removed(let event)): event
    case .contact(.added(let event)): event
    case .contact(.updated(let event)): event
    case .contact(.favorited(let event)): event
    case .contact(.unfavorited(let event)): event
    case .contact(.erased(let event)): event
    }
  }

  /// The event type's stable name (`ContactFavorited`).
  public var eventType: String { type(of: payload).eventType }

  /// The schema version the event encodes with.
  public var schemaVersion: Int { payload.encodedSchemaVersion }

  /// The stream the event belongs to (`contact-13`).
  public var streamName: String { payload.streamName }

  /// The kind of entity the event is about.
  public var entityKind: EntityKind {
    switch self {
    case .observation: .observation
    case .state: .state
    case .zoo: .animal
    case .location: .location
    case .contact: .contact
    }
  }

  /// Writes the payload as compact JSON.
  public func encode(to writer: inout JSONWriter) {
    payload.encode(to: &writer)
  }
}
