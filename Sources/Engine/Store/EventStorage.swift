import Events

/// Where a log is kept, as domain commands (`handle(_:with:metadata:expectedVersion:retries:)`)
/// need it: a stream's events and version, an append with an expected version, and each event
/// typed for a domain. `EventLog` keeps it in a file; the `Postgres` module keeps it in
/// PostgreSQL (Message DB's schema).
public protocol EventStorage {
  /// Every event of `stream`, in version order, and the stream's version (0 when it has none).
  func events(inStream stream: String) throws -> (events: [RecordedEvent], version: Int64)

  /// Appends `events` to `stream` atomically, if the stream is at `expectedVersion`; an event
  /// whose id is stored already (with the same content) is reported, not appended again.
  /// - Throws: `EngineError.versionConflict` (nothing appended), and the storage's errors.
  func append(
    _ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion
  ) throws -> [EventLog.Outcome]

  /// The typed event inside a recorded one, for `decider`'s domain (sealed personal data
  /// opened); nil for another domain's event.
  func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws -> D.Event?
}

extension EventLog: EventStorage {}

extension RecordedEvent {
  /// The typed event inside this one, for `decider`'s domain, with sealed personal data
  /// opened with the keys `lookup` gives (a log kept elsewhere than in a file).
  /// - Throws: `EngineError.decoding` naming `logName`, and what opening a sealed record throws.
  package func domainEvent<D: Decider>(
    for decider: D.Type, logName: String, keyStoreName: String,
    keys lookup: @escaping (KeyStore.KeyID) throws -> KeyStore.Lookup
  ) throws -> D.Event? {
    let decoded: DomainEvent?
    do throws(EventsError) {
      decoded = try EventVocabulary.decode(self, strict: false)
    } catch {
      throw EngineError.decoding(error, path: logName, sequence: sequence)
    }
    guard var domainEvent = decoded else { return nil }
    if schemaVersion >= 2, PersonalData.carriesPersonalData(type: type) {
      var ring = PersonalData.KeyRing(logName: logName, keyStoreName: keyStoreName, lookup: lookup)
      domainEvent = try PersonalData.open(
        domainEvent, id: id, stream: stream, sequence: sequence, keys: &ring)
    }
    return D.event(from: domainEvent)
  }
}
