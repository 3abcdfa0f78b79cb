import Events

/// The keys a checkpoint seals contacts' personal data under: the log's key store, as the
/// engine reads it.
///
/// A checkpoint is a cache beside the log, and a log's personal data is sealed under each
/// contact's own key so that destroying the key erases it (docs/ERASURE.md). A checkpoint
/// keeps that promise by construction: each contact whose data came from sealed events is
/// written sealed under a key derived from that contact's key, so an erasure that destroys the
/// key erases every checkpoint's copy too: copies a reader wrote while the erasure ran, temp
/// files of killed processes, copies in backups. Contacts whose data is in the log in clear
/// (schema 1 logs, which hold no key) are written as the log has them.
public protocol CheckpointKeys: Sendable {
  /// What the store says of key `keyID`, which sealed contact `contact`'s data in the log: the
  /// checkpoint key derived from it, or that it was destroyed (or its erasure began), or that
  /// it cannot be had.
  func checkpointKey(_ keyID: UInt64, contact: ContactID) -> CheckpointKeyLookup

  /// What ``checkpointKey(_:contact:)`` would answer, without deriving the key: what a load
  /// checks of every contact before any record is opened.
  func checkpointKeyState(_ keyID: UInt64, contact: ContactID) -> CheckpointKeyState
}

/// The answer of ``CheckpointKeys/checkpointKeyState(_:contact:)``.
public enum CheckpointKeyState: Sendable, Equatable {
  /// The key can be had.
  case available
  /// The contact's key was destroyed, or its erasure began.
  case erased
  /// The key cannot be had.
  case unavailable
}

/// The answer of ``CheckpointKeys/checkpointKey(_:contact:)``.
public enum CheckpointKeyLookup: Sendable {
  /// The key to seal and open the contact's checkpoint record with (derived from the
  /// contact's key, never the key itself).
  case key(ChaCha20Poly1305.Key)
  /// The contact's key was destroyed, or its erasure began: the contact is erased.
  case erased
  /// The key cannot be had (a store that lacks it, or cannot be read): the record cannot be
  /// written sealed, and a checkpoint holding such a record is not used.
  case unavailable
}
