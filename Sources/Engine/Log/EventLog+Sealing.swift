import Events

extension EventLog {
  /// Seals the personal data of a write's schema 1 contact events, a chunk at a time (their ids
  /// fixed here, as the seal is bound to them), and checks that schema 2 contact events offered
  /// as they are open with this log's keys. The keys it makes are held until `commit`, which
  /// writes and syncs them all at once.
  struct Sealer {
    /// The write's first seq: seeded sealing draws from a generator seeded with it, so a seed
    /// gives the same bytes however the write is chunked.
    let firstSequence: Int64
    private var store: KeyStore?
    private var seeded: GeneratorRandom?
    private var keys: PersonalData.KeyRing?

    init(firstSequence: Int64) {
      self.firstSequence = firstSequence
    }

    /// Seals the chunk's contact events; `firstSequence` is the seq its first new event gets.
    mutating func seal(
      _ plan: inout Plan, firstSequence chunkFirst: Int64, log: EventLog, state: inout State
    ) throws {
      for index in plan.newEvents.indices {
        let new = plan.newEvents[index]
        guard PersonalData.carriesPersonalData(type: plan.writes[new.write].events[new.index].type)
        else { continue }
        let sequence = chunkFirst + Int64(index)
        var event = plan.event(at: index)
        let stream = plan.stream(at: index)
        let id = try event.id ?? log.generatedID(for: sequence, state: state)
        switch event.schemaVersion {
        case 1:
          var keyStore = try store ?? log.openLog.keys.store()
          if store == nil {
            seeded = PersonalData.sealingRandom(
              seed: log.configuration.sealingSeed, firstSequence: firstSequence)
          }
          store = nil
          defer { store = keyStore }
          event.data = try PersonalData.seal(
            event.data, type: event.type, id: id, stream: stream, keys: &keyStore,
            seeded: &seeded)
          event.schemaVersion = 2
          event.id = id
          plan.newEvents[index].sealed = event
        default:
          // Offered sealed (a copy of another log's line, say): it must open here, unless it
          // was found to open ahead of the write (`Prechecks`).
          if new.opens { continue }
          var ring = keys ?? PersonalData.KeyRing(log.openLog)
          keys = nil
          defer { keys = ring }
          try EventLog.checkOpens(event, id: id, stream: stream, sequence: sequence, keys: &ring)
        }
      }
    }

    /// Writes and syncs the keys sealing made, in one write: called before the write's last
    /// chunk, after every event was checked, so that nothing reaches the key store when an
    /// event was refused, and every key is durable before the write is committed.
    mutating func commit(log: EventLog) throws {
      guard var keyStore = store else { return }
      try keyStore.commitPendingKeys()
      log.openLog.keys.update(keyStore)
      store = keyStore
    }
  }

  /// Checks that `event`, a contact event offered sealed (schema 2), opens with this log's
  /// keys under `id` and `stream`: what a write asks of a record it did not seal itself (on a
  /// file, and on a store kept elsewhere, `StoreWrite`).
  static func checkOpens(
    _ event: ProposedEvent, id: EventID, stream: String, sequence: Int64,
    keys: inout PersonalData.KeyRing
  ) throws {
    do {
      if let decoded = try EventVocabulary.decode(
        type: event.type, schemaVersion: event.schemaVersion, data: event.data, strict: false)
      {
        _ = try PersonalData.open(decoded, id: id, stream: stream, sequence: sequence, keys: &keys)
      }
    } catch {
      throw EngineError.invalidEvent(
        location: nil,
        problem:
          "a schema \(event.schemaVersion) \(event.type) holds data sealed under a key of this log's key store, and this one does not open with it (\(error)); append its schema 1 (plaintext) form and the log seals it"
      )
    }
  }
}
