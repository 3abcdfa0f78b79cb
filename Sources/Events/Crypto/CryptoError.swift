/// What can go wrong sealing or opening a message with ``ChaCha20Poly1305``, reading an
/// ``Ed25519`` key, or drawing key material from the system's random source.
///
/// `description` is one phrase naming what was expected and what was found, e.g.
/// `ChaCha20-Poly1305 key: expected 32 bytes, found 31`.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A key, nonce or sealed message has the wrong length. `what` names it (`key`, `nonce`,
  /// `sealed message`), `expected` says the length it needs.
  case invalidLength(what: String, expected: String, found: Int)
  /// The tag does not match: the ciphertext, its associated data, the key or the nonce is not
  /// the one it was sealed with. Nothing of the plaintext is released.
  case authenticationFailed
  /// The plaintext is longer than one nonce can encrypt (2³² blocks of 64 bytes, 256 GiB).
  case messageTooLong(found: Int)
  /// The system's secure random source failed; `code` is its `errno`.
  case randomSourceFailed(source: String, code: Int32)
  /// An Ed25519 public key's 32 bytes do not name a usable point; `problem` says why.
  case invalidPublicKey(problem: String)

  /// One phrase: what was expected and what was found.
  public var description: String {
    switch self {
    case .invalidLength(let what, let expected, let found) where what.hasPrefix("Ed25519"):
      "\(what): expected \(expected), found \(found) bytes"
    case .invalidLength(let what, let expected, let found):
      "ChaCha20-Poly1305 \(what): expected \(expected), found \(found) bytes"
    case .authenticationFailed:
      "ChaCha20-Poly1305: authentication failed; the ciphertext, associated data, key or nonce "
        + "is not the one it was sealed with"
    case .messageTooLong(let found):
      "ChaCha20-Poly1305: a message of \(found) bytes is longer than one nonce can encrypt "
        + "(274877906880 bytes)"
    case .randomSourceFailed(let source, let code):
      "secure random source '\(source)' failed with errno \(code)"
    case .invalidPublicKey(let problem):
      "Ed25519 public key: \(problem)"
    }
  }
}
