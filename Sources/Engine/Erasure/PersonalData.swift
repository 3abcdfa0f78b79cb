import Events
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Sealing contacts' personal data on the way into the log, and opening it on the way out,
/// with the key store beside the log (docs/FORMAT.md, "Personal data").
///
/// Writers seal every schema 1 `ContactAdded` and `ContactUpdated` they append (the form the
/// library's types and `replay append` take) into schema 2: the personal fields sealed under
/// the contact's key, made and synced into the store first if the contact has none. Readers
/// open schema 2 payloads with the store: a destroyed key gives the contact as erased, a key
/// the store lacks is an error (a store from another log, or one that lost keys).
enum PersonalData {
  /// The two event types that carry personal data.
  static func carriesPersonalData(type: String) -> Bool {
    // The length first: most types are neither, and this runs once per event of an import.
    let count = type.utf8.count
    guard count == 12 || count == 14 else { return false }
    return type == ContactAdded.eventType || type == ContactUpdated.eventType
  }

  /// Whether a line's type (raw bytes) carries personal data.
  static func carriesPersonalData(type: UnsafeBufferPointer<UInt8>) -> Bool {
    func equals(_ name: StaticString) -> Bool {
      guard type.count == name.utf8CodeUnitCount, let base = type.baseAddress else { return false }
      return memcmp(base, name.utf8Start, type.count) == 0
    }
    return equals("ContactAdded") || equals("ContactUpdated")
  }

  /// The keys one read of the log has looked up: a replay opens many events under each key,
  /// and once ``KeyStoreCache`` holds the whole store, the read asks the store it holds
  /// instead of checking the file again per event. The read sees the store as it was when it
  /// took it; a key missing from that copy makes it look at the file again (another writer
  /// may have added it since). Make one per read, not per process: a long-lived reader would
  /// not see an erasure made after it took the store.
  struct KeyRing {
    /// The log whose store answers; nil when `external` does.
    let log: OpenLog?
    /// The log's name in errors.
    let logPath: String
    /// Where the keys are, in errors.
    let keyStorePath: String
    /// The keys of a log kept elsewhere than in a file (a PostgreSQL table): asked instead of
    /// a store beside a file, and for erasures too (an erased key is `.erased` or gone).
    private let external: ((KeyStore.KeyID) throws -> KeyStore.Lookup)?
    private var source: KeyStoreCache.Source?
    /// The keys found by reading their lines alone, before a source answered: the events of
    /// one contact share a key. Once a source answers, it is asked each time and nothing is
    /// kept here: a copy of its answers cost a replay of 4 M events about 10 MB a thread, for
    /// a lookup in the store's index that costs about 1 250 instructions against a sealed
    /// record's 20 000 to open.
    private var found: [KeyStore.KeyID: KeyStore.Lookup] = [:]

    /// Contacts whose erasure began (the store ends with their marks): read once, on the
    /// first lookup. Their keys answer `.erased`, whether or not destroyed yet.
    private var erasing: Set<String>?

    init(_ log: OpenLog) {
      self.log = log
      logPath = log.path
      keyStorePath = log.files.keyStorePath
      external = nil
    }

    /// A ring whose keys come from `lookup`, for lines read from `logName` (a database).
    init(
      logName: String, keyStoreName: String,
      lookup: @escaping (KeyStore.KeyID) throws -> KeyStore.Lookup
    ) {
      log = nil
      logPath = logName
      keyStorePath = keyStoreName
      external = lookup
    }

    /// What the store beside the log says of key `id`; a key whose contact's erasure began
    /// (its `ContactErased` may be in the log while the key is not destroyed yet) is erased.
    mutating func lookup(_ id: KeyStore.KeyID) throws -> KeyStore.Lookup {
      guard let log else { return try external?(id) ?? .missing }
      let found = try storeLookup(id, log: log)
      guard case .present(let entry) = found else { return found }
      if erasing == nil { erasing = KeyStore.pendingErasures(logPath: logPath) }
      if erasing?.contains(entry.contact) == true { return .erased(contact: entry.contact) }
      return found
    }

    private mutating func storeLookup(
      _ id: KeyStore.KeyID, log: OpenLog
    ) throws -> KeyStore.Lookup {
      if let source {
        let lookup = try source.lookup(id)
        if case .missing = lookup {} else { return lookup }
      } else if let known = found[id] {
        return known
      }
      let (lookup, answeredBy) = try log.keys.lookupWithSource(id)
      source = answeredBy
      if answeredBy == nil, lookup != .missing { found[id] = lookup }
      return lookup
    }
  }

  // MARK: Opening

  /// The typed event inside `event`, read from `log`, its personal data opened.
  /// - Returns: `nil` for a type outside the vocabulary.
  /// - Throws: `EngineError.decoding` naming the log, and as `open`.
  static func decode(_ event: RecordedEvent, log: OpenLog) throws -> DomainEvent? {
    var keys = KeyRing(log)
    return try decode(event, keys: &keys)
  }

  /// `decode(_:log:)`, with the keys of one read.
  static func decode(_ event: RecordedEvent, keys: inout KeyRing) throws -> DomainEvent? {
    let logPath = keys.logPath
    let decoded: DomainEvent?
    do throws(EventsError) {
      decoded = try EventVocabulary.decode(event, strict: false)
    } catch {
      throw EngineError.decoding(error, path: logPath, sequence: event.sequence)
    }
    guard let decoded else { return nil }
    guard event.schemaVersion >= 2, carriesPersonalData(type: event.type) else { return decoded }
    return try open(
      decoded, id: event.id, stream: event.stream, sequence: event.sequence, keys: &keys)
  }

  /// `event` with its sealed personal data opened (or, its key destroyed, erased); any other
  /// event as it is.
  /// - Throws: `EngineError.keyStore` when the store lacks the key or cannot be read;
  ///   `.undecodableEvent` when the sealed record does not open (changed bytes, or a record
  ///   moved from another event).
  static func open(
    _ event: DomainEvent, id: EventID, stream: String, sequence: Int64, log: OpenLog
  ) throws -> DomainEvent {
    var keys = KeyRing(log)
    return try open(event, id: id, stream: stream, sequence: sequence, keys: &keys)
  }

  /// `event` opened as ``open(_:id:stream:sequence:log:)`` does, with the keys of one read.
  static func open(
    _ event: DomainEvent, id: EventID, stream: String, sequence: Int64, keys: inout KeyRing
  ) throws -> DomainEvent {
    let unsealed = try unseal(event, id: id, stream: stream, sequence: sequence, keys: &keys)
    return try complete(event, unsealed, sequence: sequence, logPath: keys.logPath)
  }

  /// What the key store makes of a sealed event's record: the first half of opening it (the
  /// key looked up, the record checked and decrypted), which a replay runs on its reading
  /// thread ahead of the fold.
  enum Unsealed: Sendable {
    /// The record's plaintext: the payload's schema 1 form.
    case plaintext([UInt8])
    /// The contact's key was destroyed.
    case erased
    /// Not a sealed event.
    case notSealed
  }

  /// The first half of ``open(_:id:stream:sequence:keys:)``: the key and the cipher.
  static func unseal(
    _ event: DomainEvent, id: EventID, stream: String, sequence: Int64, keys: inout KeyRing
  ) throws -> Unsealed {
    func unseal(_ payload: some PersonalDataPayload) throws -> Unsealed {
      guard let sealed = payload.sealed else { return .notSealed }
      guard
        let plaintext = try plaintext(
          of: sealed, contact: payload.contactID.rawValue, binding: binding(id, stream, payload),
          sequence: sequence, keys: &keys)
      else { return .erased }
      return .plaintext(plaintext)
    }
    switch event {
    case .contact(.added(let added)): return try unseal(added)
    case .contact(.updated(let update)): return try unseal(update)
    default: return .notSealed
    }
  }

  /// The second half: `event` with what `unseal` found read into it.
  static func complete(
    _ event: DomainEvent, _ unsealed: Unsealed, sequence: Int64, logPath: String
  ) throws -> DomainEvent {
    func complete<Payload: PersonalDataPayload>(_ payload: Payload) throws -> Payload {
      switch unsealed {
      case .notSealed: return payload
      case .erased: return payload.erased
      case .plaintext(let plaintext):
        return try opened(sequence, logPath) { () throws(EventsError) in
          try payload.opened(plaintext: plaintext)
        }
      }
    }
    switch event {
    case .contact(.added(let added)): return .contact(.added(try complete(added)))
    case .contact(.updated(let update)): return .contact(.updated(try complete(update)))
    default: return event
    }
  }

  private static func opened<Payload>(
    _ sequence: Int64, _ logPath: String, _ body: () throws(EventsError) -> Payload
  ) throws -> Payload {
    do throws(EventsError) {
      return try body()
    } catch {
      throw EngineError.undecodableEvent(
        path: logPath, sequence: sequence, problem: "its sealed personal data: \(error)")
    }
  }

  private static func binding(
    _ id: EventID, _ stream: String, _ payload: some EventPayload
  ) -> SealedRecord.Binding {
    SealedRecord.Binding(eventID: id, stream: stream, type: type(of: payload).eventType)
  }

  /// The sealed record's plaintext, or `nil` when its key was destroyed by an erasure.
  private static func plaintext(
    of sealed: SealedPersonalData, contact: String, binding: SealedRecord.Binding,
    sequence: Int64, keys: inout KeyRing
  ) throws -> [UInt8]? {
    let logPath = keys.logPath
    switch try keys.lookup(KeyStore.KeyID(rawValue: sealed.keyID)) {
    case .erased:
      return nil
    case .missing:
      throw EngineError.keyStore(
        .missingKey(
          path: keys.keyStorePath, key: sealed.keyText, contact: contact))
    case .present(let entry):
      guard entry.contact == contact else {
        throw EngineError.undecodableEvent(
          path: logPath, sequence: sequence,
          problem:
            "its personal data names key \(sealed.keyText), which is contact \(entry.contact)'s, not contact \(contact)'s"
        )
      }
      do throws(CryptoError) {
        return try sealed.record.open(key: entry.key, binding: binding)
      } catch {
        throw EngineError.undecodableEvent(
          path: logPath, sequence: sequence,
          problem:
            "its sealed personal data does not open with key \(sealed.keyText) (\(error)): the bytes were changed, or the record was moved from another event"
        )
      }
    }
  }

  // MARK: Sealing

  /// The generator seeded sealing draws from for a write whose first new event gets
  /// `firstSequence` (`EventLog.Configuration.sealingSeed`); nil without a seed (the secure
  /// random source then). The same seed and seq give the same keys and nonces in every store.
  static func sealingRandom(seed: String?, firstSequence: Int64) -> GeneratorRandom? {
    seed.map { GeneratorRandom(seed: "\($0)/personal-data/\(firstSequence)") }
  }

  /// The schema 2 payload of a schema 1 `ContactAdded` or `ContactUpdated` whose bytes are
  /// `data` (already validated), sealed under the contact's key for the event `id` of
  /// `stream`; `keys` gives that key, or makes one that the caller must make durable before
  /// (or with) the payload.
  static func seal(
    _ data: [UInt8], type: String, id: EventID, stream: String, keys: inout some SealingKeys,
    seeded: inout GeneratorRandom?
  ) throws -> [UInt8] {
    let event: DomainEvent?
    do throws(EventsError) {
      event = try EventVocabulary.decode(type: type, schemaVersion: 1, data: data, strict: false)
    } catch {
      throw EngineError.invalidEvent(location: nil, problem: error.description)
    }
    guard let payload = event?.personalDataPayload else { return data }
    let entry = try keys.sealingKey(forContact: payload.contactID.rawValue, seeded: &seeded)
    let binding = SealedRecord.Binding(eventID: id, stream: stream, type: type)
    let record: SealedRecord
    do throws(CryptoError) {
      if seeded != nil {
        var nonce: [UInt8] = []
        withUnsafeBytes(of: seeded?.next() ?? 0) { nonce += $0 }
        withUnsafeBytes(of: seeded?.next() ?? 0) { nonce += $0.prefix(4) }
        record = try SealedRecord.seal(
          data, key: entry.key, nonce: try ChaCha20Poly1305.Nonce(bytes: nonce), binding: binding)
      } else {
        record = try SealedRecord.seal(data, key: entry.key, binding: binding)
      }
    } catch {
      throw EngineError.keyStore(.randomSourceFailed(String(describing: error)))
    }
    return payload.sealing(SealedPersonalData(keyID: entry.id.rawValue, record: record))
      .encodedData
  }

  /// The contact a schema 1 `ContactAdded` or `ContactUpdated` is about, the one its sealing
  /// needs a key for; nil for any other event, and for one that does not decode (its write's
  /// checks refuse it).
  static func contactToSeal(_ event: ProposedEvent) -> String? {
    guard event.schemaVersion == 1, carriesPersonalData(type: event.type) else { return nil }
    let decoded = try? EventVocabulary.decode(
      type: event.type, schemaVersion: 1, data: event.data, strict: false)
    return decoded?.personalDataPayload?.contactID.rawValue
  }
}

/// Where sealing finds the key a contact's personal data goes under: the key store beside a
/// log file (`KeyStore`), or the key table of a log kept in PostgreSQL. `PersonalData.seal`
/// asks it, so both seal the same way, and a seed gives both the same bytes.
package protocol SealingKeys {
  /// The key `contact`'s personal data is sealed under: the contact's newest key not
  /// destroyed, or, when it has none (never sealed, or erased), a new one
  /// (`KeyStore.makeKey(for:seeded:isTaken:)`) held until the write commits. The write makes
  /// it durable before, or in the same commit as, the first event sealed under it.
  /// - Throws: `EngineError.keyStore` when the keys cannot be read or the random source fails.
  mutating func sealingKey(
    forContact contact: String, seeded: inout GeneratorRandom?
  ) throws -> KeyStore.Entry
}

extension KeyStore: SealingKeys {
  /// The contact's newest key, or one made now and held until `commitPending()`.
  package mutating func sealingKey(
    forContact contact: String, seeded: inout GeneratorRandom?
  ) throws -> Entry {
    if let existing = key(forContact: contact) { return existing }
    do throws(KeyStoreError) {
      return try addPending(contact: contact, seeded: &seeded)
    } catch {
      throw EngineError.keyStore(error)
    }
  }
}
