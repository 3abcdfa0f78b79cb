import Events

@testable import Engine

/// Checks that a sequence of events is what the domains' Deciders would have produced: for
/// each event it rebuilds the user's (or importer's) command the event stands for, asks the
/// Decider against the fold of the event's stream so far, and expects exactly that event back.
/// An event the Decider refuses (an unknown contact favourited, a zip code modified into one the
/// state has, a removed location moved) or decides differently is a problem.
struct DeciderOracle {
  private var contacts: [String: ContactDecider.State] = [:]
  private var states: [String: USStateDecider.State] = [:]
  private var animals: [String: ZooDecider.State] = [:]
  private var locations: [String: LocationDecider.State] = [:]
  private var observations: [String: ObservationDecider.State] = [:]

  /// Problems found so far, each naming the event's position and what went wrong.
  private(set) var problems: [String] = []
  /// Events checked so far.
  private(set) var checkedCount = 0

  /// Checks `event`, then folds it into its stream's state.
  mutating func check(_ event: DomainEvent) {
    checkedCount += 1
    switch event {
    case .contact(let contactEvent):
      let command: ContactCommand?
      switch contactEvent {
      case .added(let added): command = .addContact(added.record)
      case .updated(let update):
        command = contacts[event.streamName]?.record.map { .updateContact(update.applied(to: $0)) }
      case .favorited(let favorited): command = .favoriteContact(id: favorited.id)
      case .unfavorited(let unfavorited): command = .unfavoriteContact(id: unfavorited.id)
      case .erased(let erased): command = .eraseContact(id: erased.id)
      }
      record(Self.decide(ContactDecider.self, command, contactEvent, event, &contacts))
    case .state(let stateEvent):
      let command: USStateCommand
      switch stateEvent {
      case .stateAdded(let added): command = .addState(added.state)
      case .zipCodeAdded(let added):
        command = .addZipCode(state: added.state, zipCode: added.zipCode)
      case .zipCodeModified(let modified):
        command = .modifyZipCode(state: modified.state, from: modified.from, to: modified.to)
      case .zipCodeRemoved(let removed):
        command = .removeZipCode(state: removed.state, zipCode: removed.zipCode)
      }
      record(Self.decide(USStateDecider.self, command, stateEvent, event, &states))
    case .zoo(let zooEvent):
      let command: ZooCommand?
      switch zooEvent {
      case .imported(let imported):
        command = imported.source.map { .importAnimal(imported.record, source: $0) }
      case .inserted(let inserted):
        command = .insertAnimal(
          id: inserted.id, name: inserted.name, description: inserted.description,
          picturePath: inserted.picturePath)
      case .removed(let removed): command = .removeAnimal(id: removed.id)
      }
      record(Self.decide(ZooDecider.self, command, zooEvent, event, &animals))
    case .location(let locationEvent):
      let command: LocationCommand
      switch locationEvent {
      case .added(let added): command = .addLocation(added.record)
      case .renamed(let renamed): command = .renameLocation(id: renamed.id, name: renamed.name)
      case .moved(let moved): command = .moveLocation(id: moved.id, to: moved.coordinate)
      case .removed(let removed): command = .removeLocation(id: removed.id)
      }
      record(Self.decide(LocationDecider.self, command, locationEvent, event, &locations))
    case .observation(let observationEvent):
      let command: ObservationCommand
      switch observationEvent {
      case .recorded(let recorded): command = .recordObservation(id: recorded.id, recorded.record)
      case .revised(let revision):
        command = .reviseObservation(
          id: revision.id, classification: revision.classification, title: revision.title,
          description: revision.description, date: revision.date)
      case .removed(let removed): command = .removeObservation(id: removed.id)
      }
      record(Self.decide(ObservationDecider.self, command, observationEvent, event, &observations))
    }
  }

  private mutating func record(_ problem: String?) {
    if let problem { problems.append("event \(checkedCount) \(problem)") }
  }

  /// Asks the Decider for `command` against the stream's fold, folds `event` in, and returns
  /// what is wrong, if anything.
  private static func decide<D: Decider>(
    _: D.Type, _ command: D.Command?, _ event: D.Event, _ whole: DomainEvent,
    _ folds: inout [String: D.State]
  ) -> String? {
    let stream = whole.streamName
    let state = folds[stream] ?? D.State.initial
    folds[stream] = D.evolve(state, event)
    let label = "(\(whole.eventType) on \(stream))"
    guard let command else {
      return "\(label): no command stands for it (an entity that does not exist?)"
    }
    do throws(EventsError) {
      let decided = try D.decide(command, state)
      return decided == [event] ? nil : "\(label): the Decider decided \(decided), not the event"
    } catch {
      return "\(label): the Decider refused it: \(error)"
    }
  }
}
