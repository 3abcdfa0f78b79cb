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
final class LogCheckpointKeys: CheckpointKeys {
  private let ring: Mutex<PersonalData.KeyRing>

  init(logPath: String) {
    ring = Mutex(PersonalData.KeyRing(logPath: logPath))
  }

  private static let label = Array("replay checkpoint key 1".utf8) + [0]

  func checkpointKey(_ keyID: UInt64, contact: ContactID) -> CheckpointKeyLookup {
    let lookup = ring.withLock { ring in
      Result { try ring.lookup(KeyStore.KeyID(rawValue: keyID)) }
    }
    switch lookup {
    case .failure, .success(.missing):
      return .unavailable
    case .success(.erased):
      return .erased
    case .success(.present(let entry)):
      guard entry.contact == contact.rawValue else { return .unavailable }
      var hasher = SHA256()
      hasher.update(Self.label)
      entry.key.withUnsafeBytes { hasher.update($0) }
      guard let key = try? ChaCha20Poly1305.Key(bytes: hasher.finalize()) else {
        return .unavailable
      }
      return .key(key)
    }
  }
}
