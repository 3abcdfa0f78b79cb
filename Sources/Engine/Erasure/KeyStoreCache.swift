import Dispatch
@_spi(Tables) import Events
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The key stores this process has read, each kept while its file (size, inode and change
/// time) is unchanged: readers of one log share one parse, and a store another process changed
/// (a key added, an erasure) is read again.
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
    // An index read or being read (a replay asked for it ahead) answers without probing.
    if !hasIndex(forLog: logPath, status: status) {
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
    }
    let source = Source.index(try index(forLog: logPath))
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
    if let ahead = building.withLock({ $0[logPath] }), ahead.status == status {
      result = ahead.pending.wait(orElse: .unreadable(path: path, reason: "not read"))
      building.withLock { if $0[logPath]?.pending === ahead.pending { $0[logPath] = nil } }
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

  /// Indexes being read on other threads (`prepareIndex`), each of the store as it was when
  /// its read started.
  private static let building =
    Mutex<[String: (status: Identity?, pending: PendingResult<KeyStore.Index, KeyStoreError>)]>(
      [:])

  /// Whether the index of the store beside the log is read, or being read, as the file is now.
  private static func hasIndex(forLog logPath: String, status: Identity?) -> Bool {
    if let cached = indexes.withLock({ $0[logPath] }), cached.status == status { return true }
    return building.withLock { building in
      guard let ahead = building[logPath] else { return false }
      return ahead.status == status
    }
  }

  /// Starts reading the index of the store beside the log at `logPath` on another thread,
  /// unless it is read or being read as the file is now: a replay that will open many sealed
  /// payloads asks for it before it loads its checkpoint, and the two overlap. Does nothing
  /// when there is no store.
  static func prepareIndex(forLog logPath: String) {
    let status = identity(of: KeyStore.path(forLog: logPath))
    guard status != nil, !hasIndex(forLog: logPath, status: status) else { return }
    let pending = PendingResult<KeyStore.Index, KeyStoreError>()
    let started = building.withLock { building -> Bool in
      if let other = building[logPath], other.status == status { return false }
      building[logPath] = (status, pending)
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
