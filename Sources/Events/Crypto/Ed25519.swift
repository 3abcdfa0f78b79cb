/// Ed25519 signatures (RFC 8032 §5.1), written in the project like ``ChaCha20Poly1305``: the
/// signed notes that publish a log's tree heads are signed and checked with it.
///
/// ```swift
/// let key = try Ed25519.PrivateKey(seed: seed)        // 32 bytes, from SecureRandom
/// let signature = key.signature(for: message)          // 64 bytes
/// key.publicKey.isValidSignature(signature, for: message)  // true
/// ```
///
/// Verification follows RFC 8032 §5.1.7 and refuses what it allows an implementation to
/// refuse: an S that is not below the group order L, an R or a public key that is not a
/// canonical encoding of a curve point, and an R or a public key of small order. It checks
/// [S]B = R + [k]A.
///
/// - Note: field arithmetic runs the same instructions whatever the secret (radix 2^51, no
///   branch on values), and scalar multiplication adds at every bit; the scalar reduction is
///   bitwise with masked subtraction. Signing takes about a millisecond: fine for signing
///   tree heads, not meant for bulk work.
public enum Ed25519 {
  /// The length of a seed (a private key), a public key, and a signature, in bytes.
  public static let seedByteCount = 32
  /// The length of a public key, in bytes.
  public static let publicKeyByteCount = 32
  /// The length of a signature, in bytes.
  public static let signatureByteCount = 64

  /// A signing key: the 32-byte seed of RFC 8032 §5.1.5 and what is derived from it.
  public struct PrivateKey: Sendable {
    /// The 32-byte seed (the RFC's private key). Keep it secret.
    public let seed: [UInt8]
    /// The matching public key.
    public let publicKey: PublicKey
    /// The clamped secret scalar s.
    private let scalar: [UInt8]
    /// The second half of SHA-512(seed), which derives each signature's nonce.
    private let prefix: [UInt8]

    /// Derives the key pair from a 32-byte seed (RFC 8032 §5.1.5).
    /// - Throws: ``CryptoError/invalidLength(what:expected:found:)`` when `seed` is not 32
    ///   bytes.
    public init(seed: [UInt8]) throws(CryptoError) {
      guard seed.count == Ed25519.seedByteCount else {
        throw .invalidLength(what: "Ed25519 seed", expected: "32 bytes", found: seed.count)
      }
      let digest = SHA512.hash(seed)
      var scalar = Array(digest[0..<32])
      scalar[0] &= 248
      scalar[31] &= 127
      scalar[31] |= 64
      self.seed = seed
      self.scalar = scalar
      self.prefix = Array(digest[32..<64])
      self.publicKey = PublicKey(
        trustedBytes: Point.base.multiplied(by: scalar).encoded)
    }

    /// A new key pair from the system's secure random source.
    /// - Throws: ``CryptoError/randomSourceFailed(source:code:)``.
    public static func generate() throws(CryptoError) -> PrivateKey {
      try PrivateKey(seed: SecureRandom.bytes(count: Ed25519.seedByteCount))
    }

    /// The 64-byte signature of `message` (RFC 8032 §5.1.6): R ‖ S. Deterministic: the same
    /// key and message always give the same signature.
    public func signature(for message: some Collection<UInt8>) -> [UInt8] {
      let bytes = Array(message)
      let nonce = Scalar.reduced(SHA512.hash(prefix + bytes))
      let commitment = Point.base.multiplied(by: nonce).encoded
      let challenge = Scalar.reduced(SHA512.hash(commitment + publicKey.bytes + bytes))
      return commitment + Scalar.multiplyAdd(challenge, scalar, nonce)
    }
  }

  /// A verifying key: a 32-byte encoded curve point.
  public struct PublicKey: Sendable, Equatable, Hashable {
    /// The 32-byte encoding (RFC 8032 §5.1.2).
    public let bytes: [UInt8]

    /// A public key from its encoding.
    /// - Throws: ``CryptoError/invalidLength(what:expected:found:)`` for a length other than
    ///   32; ``CryptoError/invalidPublicKey(problem:)`` when the bytes are not the canonical
    ///   encoding of a curve point, or name a point of small order.
    public init(bytes: [UInt8]) throws(CryptoError) {
      guard bytes.count == Ed25519.publicKeyByteCount else {
        throw .invalidLength(what: "Ed25519 public key", expected: "32 bytes", found: bytes.count)
      }
      guard let point = Point(decoding: bytes) else {
        throw .invalidPublicKey(problem: "not the canonical encoding of a point on edwards25519")
      }
      guard !point.hasSmallOrder else {
        throw .invalidPublicKey(problem: "a point of small order, which any signature matches")
      }
      self.bytes = bytes
    }

    /// A key derived here from a private key: already known to be valid.
    init(trustedBytes: [UInt8]) {
      self.bytes = trustedBytes
    }

    /// Whether `signature` is this key's signature of `message` (RFC 8032 §5.1.7; see the
    /// type's summary for what is refused).
    public func isValidSignature(_ signature: [UInt8], for message: some Collection<UInt8>)
      -> Bool
    {
      guard signature.count == Ed25519.signatureByteCount else { return false }
      let commitmentBytes = Array(signature[0..<32])
      let s = Array(signature[32..<64])
      guard Scalar.isCanonical(s),
        let key = Point(decoding: bytes), !key.hasSmallOrder,
        let commitment = Point(decoding: commitmentBytes), !commitment.hasSmallOrder
      else { return false }
      let challenge = Scalar.reduced(SHA512.hash(commitmentBytes + bytes + Array(message)))
      let left = Point.base.multiplied(by: s)
      let right = commitment + key.multiplied(by: challenge)
      return left.encoded == right.encoded
    }
  }
}
