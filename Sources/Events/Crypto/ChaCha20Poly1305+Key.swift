extension ChaCha20Poly1305 {
  /// A 256-bit ChaCha20-Poly1305 key.
  ///
  /// Held inline (no heap storage). It never shows itself: `description`, `debugDescription`
  /// and reflection (`dump`, `print` of a containing value) print `Key(<redacted>)`, and keys
  /// compare in constant time. Its bytes leave it only for the engine's key store
  /// (`withUnsafeBytes(_:)`, `package`: no copy of a key is made for a library user to keep).
  public struct Key: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
  {
    /// The key's length in bytes.
    public static let byteCount = 32

    /// The key bytes, in order.
    private var storage: (UInt64, UInt64, UInt64, UInt64)

    /// A key from its 32 bytes (e.g. read back from a key store).
    /// - Throws: ``CryptoError/invalidLength(what:expected:found:)`` unless there are 32 bytes.
    public init(bytes: some Collection<UInt8>) throws(CryptoError) {
      // Contiguous bytes (an array, a slice of one) are copied at once: a key store loads
      // thousands of keys, and the generic loop costs tens of thousands of instructions each.
      let contiguous = bytes.withContiguousStorageIfAvailable { source in
        Result { () throws(CryptoError) in try Key(rawBytes: UnsafeRawBufferPointer(source)) }
      }
      let result =
        contiguous
        ?? Array(bytes).withUnsafeBytes { raw in
          Result { () throws(CryptoError) in try Key(rawBytes: raw) }
        }
      self = try result.get()
    }

    /// A key from its 32 bytes in memory; what the generic initialiser reads through.
    /// - Throws: ``CryptoError/invalidLength(what:expected:found:)`` unless there are 32 bytes.
    package init(rawBytes bytes: UnsafeRawBufferPointer) throws(CryptoError) {
      guard bytes.count == Self.byteCount else {
        throw .invalidLength(what: "key", expected: "32 bytes", found: bytes.count)
      }
      var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
      self.storage = storage
    }

    /// A fresh key from the system's secure random source (``SecureRandom``).
    /// - Throws: ``CryptoError/randomSourceFailed(source:code:)`` if the source fails.
    public static func random() throws(CryptoError) -> Key {
      var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      try withUnsafeMutableBytes(of: &storage) { (buffer) throws(CryptoError) in
        try SecureRandom.fill(buffer)
      }
      return Key(storage: storage)
    }

    private init(storage: (UInt64, UInt64, UInt64, UInt64)) {
      self.storage = storage
    }

    /// Calls `body` with the key's 32 bytes, e.g. to write them to a key store.
    package func withUnsafeBytes<Result, Failure>(
      _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      var copy = storage
      return try Swift.withUnsafeBytes(of: &copy) { (bytes) throws(Failure) in try body(bytes) }
    }

    /// Whether two keys are the same, in time independent of where they differ.
    public static func == (left: Key, right: Key) -> Bool {
      let difference =
        (left.storage.0 ^ right.storage.0) | (left.storage.1 ^ right.storage.1)
        | (left.storage.2 ^ right.storage.2) | (left.storage.3 ^ right.storage.3)
      return difference == 0
    }

    /// `Key(<redacted>)`: a key is never printed.
    public var description: String { "Key(<redacted>)" }
    /// `Key(<redacted>)`: a key is never printed.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection show no key bytes.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
  }

  /// A 96-bit ChaCha20-Poly1305 nonce ("number used once").
  ///
  /// A nonce must never be used twice with the same key: that reveals the XOR of the two
  /// plaintexts and lets an attacker forge tags. ``random()`` draws 96 random bits, safe for up
  /// to about 2³² messages under one key; a counter that never repeats is safe for any number.
  /// Nonces are not secret and are stored beside the ciphertext.
  public struct Nonce: Sendable, Equatable, Hashable {
    /// The nonce's length in bytes.
    public static let byteCount = 12

    /// The nonce bytes, in order, then 4 unused zero bytes.
    private var storage: (UInt64, UInt64)

    /// A nonce from its 12 bytes.
    /// - Throws: ``CryptoError/invalidLength(what:expected:found:)`` unless there are 12 bytes.
    public init(bytes: some Collection<UInt8>) throws(CryptoError) {
      guard bytes.count == Self.byteCount else {
        throw .invalidLength(what: "nonce", expected: "12 bytes", found: bytes.count)
      }
      storage = (0, 0)
      withUnsafeMutableBytes(of: &storage) { target in
        for (index, byte) in bytes.enumerated() { target[index] = byte }
      }
    }

    /// A fresh random nonce from the system's secure random source (``SecureRandom``).
    /// - Throws: ``CryptoError/randomSourceFailed(source:code:)`` if the source fails.
    public static func random() throws(CryptoError) -> Nonce {
      var storage: (UInt64, UInt64) = (0, 0)
      try withUnsafeMutableBytes(of: &storage) { (buffer) throws(CryptoError) in
        try SecureRandom.fill(UnsafeMutableRawBufferPointer(rebasing: buffer[..<Self.byteCount]))
      }
      return Nonce(storage: storage)
    }

    private init(storage: (UInt64, UInt64)) {
      self.storage = storage
    }

    /// The nonce's 12 bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Calls `body` with the nonce's 12 bytes.
    package func withUnsafeBytes<Result, Failure>(
      _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      var copy = storage
      return try Swift.withUnsafeBytes(of: &copy) { (bytes) throws(Failure) in
        try body(UnsafeRawBufferPointer(rebasing: bytes[..<Self.byteCount]))
      }
    }

    /// Whether two nonces are the same 12 bytes.
    public static func == (left: Nonce, right: Nonce) -> Bool {
      left.storage.0 == right.storage.0 && left.storage.1 == right.storage.1
    }

    /// Hashes the 12 bytes (for sets of nonces already used).
    public func hash(into hasher: inout Hasher) {
      hasher.combine(storage.0)
      hasher.combine(storage.1)
    }
  }
}
