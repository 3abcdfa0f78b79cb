import Dispatch
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
    let logPath: String
    private var source: KeyStoreCache.Source?
    /// The keys found so far: the events of one contact share a key, and reading its line
    /// again costs more than this lookup.
    private var found: [KeyStore.KeyID: KeyStore.Lookup] = [:]

    init(logPath: String) {
      self.logPath = logPath
    }

    /// What the store beside the log says of key `id`.
    mutating func lookup(_ id: KeyStore.KeyID) throws -> KeyStore.Lookup {
      if let known = found[id] { return known }
      if let source {
        let lookup = try source.lookup(id)
        if case .missing = lookup {
        } else {
          found[id] = lookup
          return lookup
        }
      }
      let (lookup, answeredBy) = try KeyStoreCache.lookupWithSource(id, forLog: logPath)
      source = answeredBy
      if case .missing = lookup {} else { found[id] = lookup }
      return lookup
    }
  }

  // MARK: Opening

  /// The typed event inside `event`, read from the log at `logPath`, its personal data opened.
  /// - Returns: `nil` for a type outside the vocabulary.
  /// - Throws: `EngineError.decoding` naming the log, and as `open`.
  static func decode(_ event: RecordedEvent, logPath: String) throws -> DomainEvent? {
    let decoded: DomainEvent?
    do throws(EventsError) {
      decoded = try EventVocabulary.decode(event, strict: false)
    } catch {
      throw EngineError.decoding(error, path: logPath, sequence: event.sequence)
    }
    guard let decoded else { return nil }
    guard event.schemaVersion >= 2, carriesPersonalData(type: event.type) else { return decoded }
    return try open(
      decoded, id: event.id, stream: event.stream, sequence: event.sequence, logPath: logPath)
  }

  /// `event` with its sealed personal data opened (or, its key destroyed, erased); any other
  /// event as it is.
  /// - Throws: `EngineError.keyStore` when the store lacks the key or cannot be read;
  ///   `.undecodableEvent` when the sealed record does not open (changed bytes, or a record
  ///   moved from another event).
  static func open(
    _ event: DomainEvent, id: EventID, stream: String, sequence: Int64, logPath: String
  ) throws -> DomainEvent {
    var keys = KeyRing(logPath: logPath)
    return try open(event, id: id, stream: stream, sequence: sequence, keys: &keys)
  }

  /// `event` opened as ``open(_:id:stream:sequence:logPath:)`` does, with the keys of one read.
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
          path: KeyStore.path(forLog: logPath), key: sealed.keyText, contact: contact))
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

  /// The schema 2 payload of a schema 1 `ContactAdded` or `ContactUpdated` whose bytes are
  /// `data` (already validated), sealed under the contact's key for the event `id` of
  /// `stream`; makes the key when the contact has none, held in `store` until the caller's
  /// `commitPending()`, which must return before the payload is written.
  static func seal(
    _ data: [UInt8], type: String, id: EventID, stream: String, store: inout KeyStore,
    seeded: inout GeneratorRandom?
  ) throws -> [UInt8] {
    let event: DomainEvent?
    do throws(EventsError) {
      event = try EventVocabulary.decode(type: type, schemaVersion: 1, data: data, strict: false)
    } catch {
      throw EngineError.invalidEvent(location: nil, problem: error.description)
    }
    guard let payload = event?.personalDataPayload else { return data }
    let contact = payload.contactID.rawValue
    let entry: KeyStore.Entry
    if let existing = store.key(forContact: contact) {
      entry = existing
    } else {
      do throws(KeyStoreError) {
        entry = try store.addPending(contact: contact, seeded: &seeded)
      } catch {
        throw EngineError.keyStore(error)
      }
    }
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
}

/// The key stores this process has read, each kept while its file (size, inode and change
/// time) is unchanged: readers of one log share one parse, and a store another process changed (a key
/// added, an erasure) is read again.
enum KeyStoreCache {
  /// A store file's identity: size, device and inode, and the time it was last changed (a
  /// store copied over another keeps the inode).
  struct Identity: Equatable {
    var status: FileDescriptor.Status
    var modified: Int64
  }

  static func identity(of path: String) -> Identity? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    #if canImport(Darwin)
      let time = info.st_mtimespec
    #else
      let time = info.st_mtim
    #endif
    let modified = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    return Identity(status: FileDescriptor.Status(info), modified: modified)
  }

  private struct Cached {
    var status: Identity?
    var store: KeyStore
  }

  private static let stores = Mutex<[String: Cached]>([:])

  /// Keys looked up one by one, per log, while the store's file is unchanged.
  private struct Probed {
    var status: Identity?
    var lookups: [KeyStore.KeyID: KeyStore.Lookup] = [:]
  }

  private static let probes = Mutex<[String: Probed]>([:])

  /// Distinct keys found line by line before the store's index is read instead. A command on
  /// one contact needs one key (two after an erasure and a re-import); each probe scans the
  /// store's lines, about a seventh of what indexing them costs, so a replay that needs
  /// thousands of keys stops probing early.
  static let probeLimit = 2

  /// What the store beside the log says of key `id`. From the whole store or its index once this
  /// process has read one; before that, from the key's own line: a command on one contact opens
  /// events sealed under one key, and the store of a large log holds a line per contact (about 200
  /// thousand for ten million generated events), which it need not parse. After `probeLimit`
  /// distinct keys, or when a line is not as the store writes it, or when the key is not there, the
  /// store's index (``KeyStore/Index``, every line checked) is read and answers.
  static func lookup(_ id: KeyStore.KeyID, forLog logPath: String) throws -> KeyStore.Lookup {
    try lookupWithSource(id, forLog: logPath).lookup
  }

  /// What answers lookups for a whole read: the store this process holds, or the store's
  /// index (``KeyStore/Index``), each as the file was when read.
  enum Source: Sendable {
    case store(KeyStore)
    case index(KeyStore.Index)

    func lookup(_ id: KeyStore.KeyID) throws -> KeyStore.Lookup {
      switch self {
      case .store(let store):
        return store.lookup(id)
      case .index(let index):
        do throws(KeyStoreError) {
          return try index.lookup(id)
        } catch {
          throw EngineError.keyStore(error)
        }
      }
    }
  }

  /// `lookup(_:forLog:)`, with what answered when it can answer more: the whole store or its
  /// index, read from the file as it is now, so a read may keep asking it
  /// (``PersonalData/KeyRing``); `nil` when the answer came from the key's line alone.
  static func lookupWithSource(
    _ id: KeyStore.KeyID, forLog logPath: String
  ) throws -> (lookup: KeyStore.Lookup, source: Source?) {
    let path = KeyStore.path(forLog: logPath)
    let status = identity(of: path)
    if let cached = stores.withLock({ $0[logPath] }), cached.status == status {
      return (cached.store.lookup(id), .store(cached.store))
    }
    if hasIndex(forLog: logPath, status: status) {
      // Read or being read (a replay asked for it ahead): no line is probed.
      let source = Source.index(try index(forLog: logPath))
      return (try source.lookup(id), source)
    }
    let known: KeyStore.Lookup?? = probes.withLock { probes in
      guard let probed = probes[logPath], probed.status == status else {
        probes[logPath] = Probed(status: status)
        return .some(nil)
      }
      if let lookup = probed.lookups[id] { return .some(lookup) }
      return probed.lookups.count < probeLimit ? .some(nil) : .none
    }
    if case .some(.some(let lookup)) = known { return (lookup, nil) }
    if case .some(.none) = known, status != nil,
      let found = KeyStore.findLine(of: id, inStoreAt: path)
    {
      probes.withLock { $0[logPath]?.lookups[id] = found }
      return (found, nil)
    }
    let index = try index(forLog: logPath)
    let source = Source.index(index)
    return (try source.lookup(id), source)
  }

  private struct CachedIndex {
    var status: Identity?
    var index: KeyStore.Index
  }

  private static let indexes = Mutex<[String: CachedIndex]>([:])

  /// The index of the store beside the log at `logPath` as its file is now.
  /// - Throws: `EngineError.keyStore` when it is damaged or unreadable.
  static func index(forLog logPath: String) throws -> KeyStore.Index {
    let path = KeyStore.path(forLog: logPath)
    let status = identity(of: path)
    if let cached = indexes.withLock({ $0[logPath] }), cached.status == status {
      return cached.index
    }
    let result: Result<KeyStore.Index, KeyStoreError>
    if let pending = building.withLock({ $0[logPath] }), pending.status == status {
      result = pending.wait()
      building.withLock { if $0[logPath] === pending { $0[logPath] = nil } }
    } else {
      result = Result { () throws(KeyStoreError) in try KeyStore.Index(logPath: logPath) }
    }
    switch result {
    case .success(let index):
      indexes.withLock { $0[logPath] = CachedIndex(status: status, index: index) }
      return index
    case .failure(let error):
      throw EngineError.keyStore(error)
    }
  }

  /// An index being read on another thread, for the store as it was when it started.
  final class PendingIndex: Sendable {
    let status: Identity?
    private let result = Mutex<Result<KeyStore.Index, KeyStoreError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(status: Identity?) {
      self.status = status
    }

    func fill(_ value: Result<KeyStore.Index, KeyStoreError>) {
      result.withLock { $0 = value }
      done.signal()
    }

    /// Waits for `fill`; any number of callers may wait.
    func wait() -> Result<KeyStore.Index, KeyStoreError> {
      done.wait()
      done.signal()
      return result.withLock { $0 } ?? .failure(.unreadable(path: "?", reason: "not read"))
    }
  }

  private static let building = Mutex<[String: PendingIndex]>([:])

  /// Whether the index of the store beside the log is read, or being read, as the file is now.
  private static func hasIndex(forLog logPath: String, status: Identity?) -> Bool {
    if let cached = indexes.withLock({ $0[logPath] }), cached.status == status { return true }
    return building.withLock { building in
      guard let pending = building[logPath] else { return false }
      return pending.status == status
    }
  }

  /// Starts reading the index of the store beside the log at `logPath` on another thread,
  /// unless it is read or being read as the file is now: a replay that will open many sealed
  /// payloads asks for it before it loads its checkpoint, and the two overlap. Does nothing
  /// when there is no store.
  static func prepareIndex(forLog logPath: String) {
    let status = identity(of: KeyStore.path(forLog: logPath))
    guard status != nil, !hasIndex(forLog: logPath, status: status) else { return }
    let pending = PendingIndex(status: status)
    let started = building.withLock { building -> Bool in
      if let other = building[logPath], other.status == status { return false }
      building[logPath] = pending
      return true
    }
    guard started else { return }
    DispatchQueue.global().async {
      pending.fill(Result { () throws(KeyStoreError) in try KeyStore.Index(logPath: logPath) })
    }
  }

  /// The store beside the log at `logPath` as its file is now.
  /// - Throws: `EngineError.keyStore` when it is damaged or unreadable.
  static func store(forLog logPath: String) throws -> KeyStore {
    let path = KeyStore.path(forLog: logPath)
    let status = identity(of: path)
    if let cached = stores.withLock({ $0[logPath] }), cached.status == status {
      return cached.store
    }
    let store: KeyStore
    do throws(KeyStoreError) {
      store = try KeyStore(logPath: logPath)
    } catch {
      throw EngineError.keyStore(error)
    }
    stores.withLock { $0[logPath] = Cached(status: status, store: store) }
    return store
  }

  /// Records `store` as the file now is, after this process changed it.
  static func update(_ store: KeyStore, forLog logPath: String) {
    let status = identity(of: store.path)
    stores.withLock { $0[logPath] = Cached(status: status, store: store) }
  }
}
