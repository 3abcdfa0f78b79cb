/// A domain command that knows its domain's Decider, so a store can run it without being told
/// which Decider to use: `try await store.handle(ContactCommand.favoriteContact(id: id))`.
public protocol DecidedCommand: DomainCommand {
  /// The Decider that decides this command.
  associatedtype DecidedBy: Decider where DecidedBy.Command == Self
}

extension ContactCommand: DecidedCommand {
  public typealias DecidedBy = ContactDecider
}

extension LocationCommand: DecidedCommand {
  public typealias DecidedBy = LocationDecider
}

extension ObservationCommand: DecidedCommand {
  public typealias DecidedBy = ObservationDecider
}

extension USStateCommand: DecidedCommand {
  public typealias DecidedBy = USStateDecider
}

extension ZooCommand: DecidedCommand {
  public typealias DecidedBy = ZooDecider
}
