@_spi(Tables) import Events
import Projections
import Synchronization

/// The keys a log's checkpoints seal contacts' personal data under (``CheckpointKeys``): for
/// each contact key of the log's key store, a checkpoint key derived from it,
/// SHA-256("replay checkpoint key 1" ‖ 0x00 ‖ key). Destroying the contact's key (an erasure)
/// leaves no way to derive it, so every checkpoint's copy of the contact is erased with it;
/// a contact whose erasure began (its mark is in the store) is erased already.
///
/// One value serves one read (a replay, a checkpoint's load and the records it opens later):
/// it asks the store as one ``PersonalData/KeyRing`` does, under a lock.
package final class LogCheckpointKeys: CheckpointKeys {
  private struct State {
    var ring: PersonalData.KeyRing
    /// Keys derived in this read, by key id: a replay saving several checkpoints seals each
    /// contact under the same one.
    var derived: [UInt64: ChaCha20Poly1305.Key] = [:]
  }

  private let state: Mutex<State>

  init(_ log: OpenLog) {
    state = Mutex(State(ring: PersonalData.KeyRing(log)))
  }

  /// The keys of a log kept elsewhere than in a file (a database's key table): `lookup`
  /// answers for each key, `.erased` for a destroyed one.
  package init(
    logName: String, keyStoreName: String,
    lookup: @escaping @Sendable (KeyStore.KeyID) throws -> KeyStore.Lookup
  ) {
    state = Mutex(
      State(
        ring: PersonalData.KeyRing(logName: logName, keyStoreName: keyStoreName, lookup: lookup)))
  }

  private static let label = Array("replay checkpoint key 1".utf8) + [0]

  /// What the store says of key `keyID` for `contact`.
  private func lookup(
    _ keyID: UInt64, contact: ContactID, _ state: inout State
  ) -> KeyStore.Lookup? {
    guard let found = try? state.ring.lookup(KeyStore.KeyID(rawValue: keyID)) else { return nil }
    if case .present(let entry) = found, entry.contact != contact.rawValue { return nil }
    return found
  }

  package func checkpointKeyState(_ keyID: UInt64, contact: ContactID) -> CheckpointKeyState {
    state.withLock { state in
      switch lookup(keyID, contact: contact, &state) {
      case .present: .available
      case .erased: .erased
      case .missing, nil: .unavailable
      }
    }
  }

  package func checkpointKey(_ keyID: UInt64, contact: ContactID) -> CheckpointKeyLookup {
    state.withLock { state in
      switch lookup(keyID, contact: contact, &state) {
      case .missing, nil:
        return .unavailable
      case .erased:
        return .erased
      case .present(let entry):
        if let known = state.derived[keyID] { return .key(known) }
        var hasher = SHA256()
        hasher.update(Self.label)
        entry.key.withUnsafeBytes { hasher.update($0) }
        guard let key = try? ChaCha20Poly1305.Key(bytes: hasher.finalize()) else {
          return .unavailable
        }
        state.derived[keyID] = key
        return .key(key)
      }
    }
  }
}
