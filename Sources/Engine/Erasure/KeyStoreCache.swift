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

/// What this process keeps of one log's key store (`<log>.keys`), owned by the log's
/// ``OpenLog``: the whole store once read, the keys found line by line before that, and the
/// store's index (read, or being read on another thread). Each is kept while the store's file
/// (size, inode and change time) is unchanged: readers of one log share one parse, and a store
/// another process changed (a key added, an erasure) is read again.
final class KeyStoreCache: Sendable {
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

  /// The log whose store this is, as its readers name it.
  let logPath: String
  /// The store's file.
  let path: String

  init(files: LogFiles) {
    logPath = files.logPath
    path = files.keyStorePath
  }

  private struct Cached {
    var status: Identity?
    var store: KeyStore
  }

  /// Keys looked up one by one while the store's file is unchanged.
  private struct Probed {
    var status: Identity?
    var lookups: [KeyStore.KeyID: KeyStore.Lookup] = [:]
  }

  private struct CachedIndex {
    var status: Identity?
    var index: KeyStore.Index
  }

  /// An index being read on another thread (`prepareIndex`), of the store as it was when its
  /// read started.
  private struct Building {
    var status: Identity?
    var pending: PendingResult<KeyStore.Index, KeyStoreError>
  }

  private struct State {
    var store: Cached?
    var probed: Probed?
    var index: CachedIndex?
    var building: Building?
  }

  private let state = Mutex(State())

  /// Distinct keys found line by line before the store's index is read instead. A command on
  /// one contact needs one key (two after an erasure and a re-import); each probe scans the
  /// store's lines, about a seventh of what indexing them costs, so a replay that needs
  /// thousands of keys stops probing early.
  static let probeLimit = 2

  /// What the store says of key `id`. From the whole store or its index once this process has
  /// read one; before that, from the key's own line: a command on one contact opens events
  /// sealed under one key, and the store of a large log holds a line per contact (about 200
  /// thousand for ten million generated events), which it need not parse. After `probeLimit`
  /// distinct keys, or when a line is not as the store writes it, or when the key is not there,
  /// the store's index (``KeyStore/Index``, every line checked) is read and answers.
  func lookup(_ id: KeyStore.KeyID) throws -> KeyStore.Lookup {
    try lookupWithSource(id).lookup
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

  /// `lookup(_:)`, with what answered when it can answer more: the whole store or its index,
  /// read from the file as it is now, so a read may keep asking it (``PersonalData/KeyRing``);
  /// `nil` when the answer came from the key's line alone.
  func lookupWithSource(_ id: KeyStore.KeyID) throws -> (lookup: KeyStore.Lookup, source: Source?) {
    let status = Self.identity(of: path)
    if let cached = state.withLock({ $0.store }), cached.status == status {
      return (cached.store.lookup(id), .store(cached.store))
    }
    // An index read or being read (a replay asked for it ahead) answers without probing.
    if !hasIndex(status: status) {
      let known: KeyStore.Lookup?? = state.withLock { state in
        guard let probed = state.probed, probed.status == status else {
          state.probed = Probed(status: status)
          return .some(nil)
        }
        if let lookup = probed.lookups[id] { return .some(lookup) }
        return probed.lookups.count < Self.probeLimit ? .some(nil) : .none
      }
      if case .some(.some(let lookup)) = known { return (lookup, nil) }
      if case .some(.none) = known, status != nil,
        let found = KeyStore.findLine(of: id, inStoreAt: path)
      {
        state.withLock { $0.probed?.lookups[id] = found }
        return (found, nil)
      }
    }
    let source = Source.index(try index())
    return (try source.lookup(id), source)
  }

  /// The store's index as its file is now.
  /// - Throws: `EngineError.keyStore` when it is damaged or unreadable.
  func index() throws -> KeyStore.Index {
    let status = Self.identity(of: path)
    if let cached = state.withLock({ $0.index }), cached.status == status {
      return cached.index
    }
    let result: Result<KeyStore.Index, KeyStoreError>
    if let ahead = state.withLock({ $0.building }), ahead.status == status {
      result = ahead.pending.wait(orElse: .unreadable(path: path, reason: "not read"))
      state.withLock { if $0.building?.pending === ahead.pending { $0.building = nil } }
    } else {
      let logPath = logPath
      result = Result { () throws(KeyStoreError) in try KeyStore.Index(logPath: logPath) }
    }
    switch result {
    case .success(let index):
      state.withLock { $0.index = CachedIndex(status: status, index: index) }
      return index
    case .failure(let error):
      throw EngineError.keyStore(error)
    }
  }

  /// Whether the store's index is read, or being read, as the file is now.
  private func hasIndex(status: Identity?) -> Bool {
    state.withLock { state in
      if let cached = state.index, cached.status == status { return true }
      guard let ahead = state.building else { return false }
      return ahead.status == status
    }
  }

  /// Starts reading the store's index on another thread, unless it is read or being read as
  /// the file is now: a replay that will open many sealed payloads asks for it before it loads
  /// its checkpoint, and the two overlap. Does nothing when there is no store.
  func prepareIndex() {
    let status = Self.identity(of: path)
    guard status != nil, !hasIndex(status: status) else { return }
    let pending = PendingResult<KeyStore.Index, KeyStoreError>()
    let started = state.withLock { state -> Bool in
      if let other = state.building, other.status == status { return false }
      state.building = Building(status: status, pending: pending)
      return true
    }
    guard started else { return }
    let logPath = logPath
    DispatchQueue.global().async {
      pending.fill(Result { () throws(KeyStoreError) in try KeyStore.Index(logPath: logPath) })
    }
  }

  /// The store as its file is now.
  /// - Throws: `EngineError.keyStore` when it is damaged or unreadable.
  func store() throws -> KeyStore {
    let status = Self.identity(of: path)
    if let cached = state.withLock({ $0.store }), cached.status == status {
      return cached.store
    }
    let store: KeyStore
    do throws(KeyStoreError) {
      store = try KeyStore(logPath: logPath)
    } catch {
      throw EngineError.keyStore(error)
    }
    state.withLock { $0.store = Cached(status: status, store: store) }
    return store
  }

  /// Records `store` as the file now is, after this process changed it.
  func update(_ store: KeyStore) {
    let status = Self.identity(of: store.path)
    state.withLock { $0.store = Cached(status: status, store: store) }
  }
}
