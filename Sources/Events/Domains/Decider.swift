/// A domain's decision logic, in the Decider pattern: `decide(command, state)` is pure and may
/// fail; `evolve(state, event)` never fails; the store does all I/O.
///
/// A state is the fold of ONE stream (one entity). To handle a command, the engine reads the
/// command's stream (`command.streamName`), decodes its events, folds them with `fold(_:)`, calls
/// `decision(_:_:)`, and appends the events with the stream version it read as the expected
/// version. When `events` is empty the command changed nothing and `noChangeReason` says why.
public protocol Decider {
  /// The domain's commands.
  associatedtype Command: DomainCommand
  /// The domain's events (one case per event type).
  associatedtype Event: Sendable, Equatable
  /// The fold of one stream.
  associatedtype State: DeciderState where State.Event == Event

  /// The events `command` produces against `state`, or why it produces none.
  /// - Throws: `EventsError` when the command breaks a rule (unknown entity, duplicate zip code,
  ///   invalid argument, ...). Nothing is to be appended then.
  static func decision(_ command: Command, _ state: State) throws(EventsError) -> Decision<Event>

  /// Wraps one of this domain's events in the vocabulary's union.
  static func domainEvent(_ event: Event) -> DomainEvent

  /// This domain's event inside `event`, or `nil` when it belongs to another domain.
  static func event(from event: DomainEvent) -> Event?
}

extension Decider {
  /// The events `command` produces against `state` (empty when it changes nothing; see
  /// `decision(_:_:)` for why).
  /// - Throws: `EventsError` when the command breaks a rule.
  public static func decide(_ command: Command, _ state: State) throws(EventsError) -> [Event] {
    try decision(command, state).events
  }

  /// The state after `event`. Never fails: an event that does not fit the state (which the
  /// deciders never produce) leaves the state as it is.
  public static func evolve(_ state: State, _ event: Event) -> State {
    var next = state
    next.apply(event)
    return next
  }

  /// The state of a stream holding `events`, in order, starting from `State.initial`.
  /// - Complexity: O(n) in the number of events; the state is updated in place.
  public static func fold(_ events: some Sequence<Event>) -> State {
    events.reduce(into: State.initial) { $0.apply($1) }
  }
}

/// The fold of one stream: a starting value and how each event changes it.
public protocol DeciderState: Sendable, Equatable {
  /// The domain's events.
  associatedtype Event
  /// The state of a stream with no events.
  static var initial: Self { get }
  /// Applies `event` in place. Never fails.
  mutating func apply(_ event: Event)
}

/// A domain command: it names the stream it acts on, so the engine knows which one to load.
public protocol DomainCommand: Sendable, Equatable {
  /// The stream the command reads and appends to (`contact-13`).
  var streamName: String { get }
  /// The command's imperative name, for messages and audit (`favoriteContact`).
  var name: String { get }
}

/// What a decider decided: the events to append, or, when there are none, why not.
public struct Decision<Event: Sendable & Equatable>: Sendable, Equatable {
  /// The events to append, in order; empty when the command changes nothing.
  public var events: [Event]
  /// Why the command changes nothing (`contact '13' is already a favorite`); `nil` when `events`
  /// is not empty.
  public var noChangeReason: String?

  /// A decision to append `events`.
  public static func append(_ events: [Event]) -> Decision {
    Decision(events: events, noChangeReason: nil)
  }

  /// A decision to append nothing, because of `reason`.
  public static func noChange(_ reason: String) -> Decision {
    Decision(events: [], noChangeReason: reason)
  }
}

extension DomainCommand {
  /// Throws the error for this command's `field` when `text` is empty or only white space.
  /// - Parameter expected: what the field must hold, for the message.
  func checkNotBlank(_ text: String, field: String, expected: String) throws(EventsError) {
    guard DomainText.isBlank(text) else { return }
    throw EventsError.invalidCommand(
      command: name, field: field, expected: expected, found: DomainText.quoted(text))
  }
}

extension EntityKind {
  /// `record`, or the error for a command on entity `id` of this kind when it was never added
  /// (`record` is `nil`) or was removed.
  func existing<Record>(
    _ record: Record?, id: String, isRemoved: Bool = false
  ) throws(EventsError) -> Record {
    guard let record else { throw EventsError.unknownEntity(kind: self, id: id) }
    guard !isRemoved else { throw EventsError.entityRemoved(kind: self, id: id) }
    return record
  }
}
