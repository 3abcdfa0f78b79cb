/// What users and importers ask of the contacts domain.
public enum ContactCommand: DomainCommand {
  /// Add a contact under a new id.
  case addContact(ContactRecord)
  /// Make a contact match `record` (same id): `ContactUpdated` with the differing fields, and
  /// `ContactFavorited` / `ContactUnfavorited` when `isFavorite` differs.
  case updateContact(ContactRecord)
  /// Mark a contact as a favourite.
  case favoriteContact(id: ContactID)
  /// Unmark a favourite.
  case unfavoriteContact(id: ContactID)
  /// Import the source's version of a contact (see `ContactDecider`).
  case importContact(ContactRecord, source: String)
  /// Erase a contact's personal data (`ContactErased`; the log's writer then destroys the key).
  case eraseContact(id: ContactID)
  /// `importContact`, bringing an erased contact back (`ContactAdded` with the source's
  /// record, sealed under a new key): `import --include-erased`.
  case importErasedContact(ContactRecord, source: String)

  /// The contact the command acts on.
  public var id: ContactID {
    switch self {
    case .addContact(let record): record.id
    case .updateContact(let record): record.id
    case .favoriteContact(let id): id
    case .unfavoriteContact(let id): id
    case .importContact(let record, _): record.id
    case .eraseContact(let id): id
    case .importErasedContact(let record, _): record.id
    }
  }

  public var streamName: String { id.streamName }

  public var name: String {
    switch self {
    case .addContact: "addContact"
    case .updateContact: "updateContact"
    case .favoriteContact: "favoriteContact"
    case .unfavoriteContact: "unfavoriteContact"
    case .importContact: "importContact"
    case .eraseContact: "eraseContact"
    case .importErasedContact: "importErasedContact"
    }
  }
}

/// The contacts domain's rules.
///
/// - Names must not be empty or only white space; adding an existing id is an error.
/// - Favouriting or unfavouriting an unknown contact is an error. Favouriting a favourite (or
///   unfavouriting a contact that is not one) is not: it appends nothing, and
///   `decision(_:_:).noChangeReason` says why (`contact '13' is already a favorite`).
/// - Import (three-way): a new id appends `ContactAdded` with its `source`; a record equal to the
///   last imported version appends nothing; otherwise `ContactUpdated` with only the fields the
///   source changed, and `ContactFavorited` / `ContactUnfavorited` if the source's `isFavorite`
///   changed, each with `source`, even when the contact already holds the new value (so the
///   state's `lastImported` stays exactly the source's version). User changes to fields the
///   source did not change stay; where both changed a field, the source's new value wins. A
///   contact that was never imported (added by a user) takes the source's values where they
///   differ.
public enum ContactDecider: Decider {
  /// The fold of one contact's stream.
  public struct State: DeciderState {
    /// The contact as it is now; `nil` until added.
    public var record: ContactRecord?
    /// The source's version as last imported; `nil` if never imported.
    public var lastImported: ContactRecord?
    /// Whether a `ContactErased` erased the contact's personal data.
    public var isErased = false

    public init(record: ContactRecord? = nil, lastImported: ContactRecord? = nil) {
      self.record = record
      self.lastImported = lastImported
    }

    public static let initial = State()

    public mutating func apply(_ event: ContactEvent) {
      switch event {
      case .added(let added):
        record = added.record
        isErased = false
        if added.source != nil { lastImported = added.record }
      case .updated(let update):
        guard let current = record else { return }
        record = update.applied(to: current)
        if update.source != nil { lastImported = update.applied(to: lastImported ?? current) }
      case .favorited(let favorited):
        setFavorite(true, source: favorited.source)
      case .unfavorited(let unfavorited):
        setFavorite(false, source: unfavorited.source)
      case .erased:
        isErased = true
        record = record?.erased
        lastImported = nil
      }
    }

    private mutating func setFavorite(_ isFavorite: Bool, source: String?) {
      guard let current = record else { return }
      record?.isFavorite = isFavorite
      if source != nil {
        lastImported = lastImported ?? current
        lastImported?.isFavorite = isFavorite
      }
    }
  }

  public static func decision(
    _ command: ContactCommand, _ state: State
  ) throws(EventsError) -> Decision<ContactEvent> {
    switch command {
    case .addContact(let record):
      try checkName(record.name, command)
      guard state.record == nil else {
        throw EventsError.entityAlreadyExists(kind: .contact, id: record.id.rawValue)
      }
      return .append([.added(ContactAdded(record: record))])

    case .updateContact(let record):
      try checkName(record.name, command)
      let current = try existing(record.id, state)
      if state.isErased {
        throw EventsError.invalidCommand(
          command: command.name, field: "id", expected: "a contact that is not erased",
          found: "contact '\(record.id)', erased")
      }
      let events = changes(from: current, to: record, source: nil)
      guard !events.isEmpty else {
        return .noChange("contact '\(record.id)' already has these values")
      }
      return .append(events)

    case .favoriteContact(let id):
      let current = try existing(id, state)
      guard !current.isFavorite else { return .noChange("contact '\(id)' is already a favorite") }
      return .append([.favorited(ContactFavorited(id: id))])

    case .unfavoriteContact(let id):
      let current = try existing(id, state)
      guard current.isFavorite else { return .noChange("contact '\(id)' is not a favorite") }
      return .append([.unfavorited(ContactUnfavorited(id: id))])

    case .eraseContact(let id):
      _ = try existing(id, state)
      guard !state.isErased else { return .noChange("contact '\(id)' is already erased") }
      return .append([.erased(ContactErased(id: id))])

    case .importErasedContact(let record, let source):
      guard state.isErased else {
        return try decision(.importContact(record, source: source), state)
      }
      try checkName(record.name, command)
      return .append([.added(ContactAdded(record: record, source: source))])

    case .importContact(let record, let source):
      try checkName(record.name, command)
      if state.isErased {
        return .noChange(
          "contact '\(record.id)' was erased; an import brings it back only with --include-erased"
        )
      }
      guard let current = state.record else {
        return .append([.added(ContactAdded(record: record, source: source))])
      }
      let events = changes(from: state.lastImported ?? current, to: record, source: source)
      guard !events.isEmpty else {
        return .noChange("contact '\(record.id)' is unchanged since its last import")
      }
      // Equal to the current state (an export of this log imported back): the changes since
      // the last import are already there, so appending them again would be redundant.
      if record == current {
        return .noChange("contact '\(record.id)' is already as the source has it")
      }
      return .append(events)
    }
  }

  /// The events that carry the differences between `old` and `new`.
  private static func changes(
    from old: ContactRecord, to new: ContactRecord, source: String?
  ) -> [ContactEvent] {
    var events: [ContactEvent] = []
    if let update = ContactUpdated.between(old, new, source: source) {
      events.append(.updated(update))
    }
    if old.isFavorite != new.isFavorite {
      events.append(
        new.isFavorite
          ? .favorited(ContactFavorited(id: new.id, source: source))
          : .unfavorited(ContactUnfavorited(id: new.id, source: source)))
    }
    return events
  }

  private static func checkName(_ name: String, _ command: ContactCommand) throws(EventsError) {
    try command.checkNotBlank(name, field: "name", expected: ContactRecord.nameExpectation)
  }

  private static func existing(
    _ id: ContactID, _ state: State
  ) throws(EventsError) -> ContactRecord {
    try EntityKind.contact.existing(state.record, id: id.rawValue)
  }

  public static func domainEvent(_ event: ContactEvent) -> DomainEvent { .contact(event) }

  public static func event(from event: DomainEvent) -> ContactEvent? {
    if case .contact(let event) = event { return event }
    return nil
  }
}
