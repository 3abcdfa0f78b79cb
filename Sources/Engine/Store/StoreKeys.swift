/// The keys of a store other than a log file (PostgreSQL's `replay_keys`): those sealing uses
/// and makes, and those a record offered sealed must open with.
package protocol StoreKeys: SealingKeys {
  /// The store's name in errors.
  var logName: String { get }
  /// Where its keys are, in errors.
  var keyStoreName: String { get }
  /// What the store says of key `id`: present, destroyed by an erasure, or unknown.
  func lookup(_ id: KeyStore.KeyID) throws -> KeyStore.Lookup
}
