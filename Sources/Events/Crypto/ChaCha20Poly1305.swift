/// The ChaCha20-Poly1305 authenticated cipher with associated data (AEAD) of RFC 8439 §2.8.
///
/// ``seal(_:key:nonce:associatedData:)`` encrypts a message and appends a 16-byte tag that
/// authenticates the ciphertext together with associated data (bytes sent in clear but bound to
/// the message, such as the id of the record that holds it). ``open(_:key:nonce:associatedData:)``
/// checks the tag, in constant time, before it decrypts anything: a wrong key, nonce, ciphertext,
/// tag or associated data is ``CryptoError/authenticationFailed``, never plaintext.
///
/// ```swift
/// let key = try ChaCha20Poly1305.Key.random()
/// let nonce = try ChaCha20Poly1305.Nonce.random()
/// let sealed = try ChaCha20Poly1305.seal(Array("Kermit".utf8), key: key, nonce: nonce,
///                                        associatedData: Array("contact-13/name".utf8))
/// let name = try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce,
///                                      associatedData: Array("contact-13/name".utf8))
/// ```
///
/// A (key, nonce) pair must never seal two different messages; see ``Nonce``.
///
/// - Note: Pure Swift, tested on every vector of RFC 8439 (sections 2 and Appendix A). The
///   buffer-based variants allocate nothing; the array variants allocate only their result.
public enum ChaCha20Poly1305 {
  /// The length of the authentication tag appended to every ciphertext, in bytes.
  public static let tagByteCount = 16
  /// The longest plaintext one nonce can seal: 2³² − 1 blocks of 64 bytes (block 0 makes the
  /// one-time Poly1305 key).
  public static let maximumPlaintextByteCount = 274_877_906_880

  // MARK: Arrays

  /// Encrypts and authenticates `plaintext`.
  /// - Parameters:
  ///   - plaintext: The message; may be empty (then only the tag is returned).
  ///   - key: The key.
  ///   - nonce: A nonce never used before with `key`.
  ///   - associatedData: Bytes authenticated but not encrypted; `open` must be given the same.
  /// - Returns: The ciphertext (as long as `plaintext`) followed by the 16-byte tag.
  /// - Throws: ``CryptoError/messageTooLong(found:)`` past ``maximumPlaintextByteCount``.
  /// - Complexity: O(`plaintext.count + associatedData.count`).
  public static func seal(
    _ plaintext: some Collection<UInt8>, key: Key, nonce: Nonce,
    associatedData: some Collection<UInt8>
  ) throws(CryptoError) -> [UInt8] {
    try withContiguousBytes(plaintext) { (plain) throws(CryptoError) in
      try withContiguousBytes(associatedData) { (data) throws(CryptoError) in
        try makeArray(count: plain.count + tagByteCount) { (output) throws(CryptoError) in
          try seal(plain, key: key, nonce: nonce, associatedData: data, into: output)
        }
      }
    }
  }

  /// Checks and decrypts what ``seal(_:key:nonce:associatedData:)`` returned.
  /// - Parameters:
  ///   - sealed: The ciphertext followed by its 16-byte tag.
  ///   - key: The key it was sealed with.
  ///   - nonce: The nonce it was sealed with.
  ///   - associatedData: The associated data it was sealed with.
  /// - Returns: The plaintext.
  /// - Throws: ``CryptoError/authenticationFailed`` if anything differs from what was sealed;
  ///   ``CryptoError/invalidLength(what:expected:found:)`` if `sealed` is shorter than a tag.
  /// - Complexity: O(`sealed.count + associatedData.count`).
  public static func open(
    _ sealed: some Collection<UInt8>, key: Key, nonce: Nonce,
    associatedData: some Collection<UInt8>
  ) throws(CryptoError) -> [UInt8] {
    try withContiguousBytes(sealed) { (sealedBytes) throws(CryptoError) in
      guard sealedBytes.count >= tagByteCount else {
        throw .invalidLength(
          what: "sealed message", expected: "at least 16 bytes (the tag)",
          found: sealedBytes.count)
      }
      return try withContiguousBytes(associatedData) { (data) throws(CryptoError) in
        try makeArray(count: sealedBytes.count - tagByteCount) { (output) throws(CryptoError) in
          try open(sealedBytes, key: key, nonce: nonce, associatedData: data, into: output)
        }
      }
    }
  }

  // MARK: Buffers

  /// Encrypts and authenticates `plaintext` into `output`, allocating nothing.
  /// - Parameters:
  ///   - plaintext: The message.
  ///   - key: The key.
  ///   - nonce: A nonce never used before with `key`.
  ///   - associatedData: Bytes authenticated but not encrypted.
  ///   - output: Exactly `plaintext.count + 16` bytes, for the ciphertext then the tag. It may
  ///     start at `plaintext` (encryption in place) but must not otherwise overlap it.
  /// - Throws: ``CryptoError/messageTooLong(found:)`` past ``maximumPlaintextByteCount``.
  package static func seal(
    _ plaintext: UnsafeRawBufferPointer, key: Key, nonce: Nonce,
    associatedData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) throws(CryptoError) {
    precondition(
      output.count == plaintext.count + tagByteCount,
      "ChaCha20Poly1305.seal: output must be plaintext.count + 16 bytes")
    guard plaintext.count <= maximumPlaintextByteCount else {
      throw .messageTooLong(found: plaintext.count)
    }
    let cipher = makeCipher(key: key, nonce: nonce)
    // Blocks 0 to 3 at once: the one-time key, then the message's first three blocks.
    var first = cipher.batch(startingAt: 0)
    let ciphertext = UnsafeMutableRawBufferPointer(rebasing: output[..<plaintext.count])
    if let source = plaintext.baseAddress, let target = ciphertext.baseAddress {
      cipher.xor(source, into: target, count: plaintext.count, counter: 1, made: first)
    }
    let tag = authenticate(
      UnsafeRawBufferPointer(ciphertext), associatedData: associatedData, keyBlock: &first)
    output.storeBytes(of: tag.0.littleEndian, toByteOffset: plaintext.count, as: UInt64.self)
    output.storeBytes(of: tag.1.littleEndian, toByteOffset: plaintext.count + 8, as: UInt64.self)
  }

  /// Checks the tag of `sealed`, then decrypts it into `output`, allocating nothing.
  ///
  /// When the tag does not match, nothing is written to `output`.
  /// - Parameters:
  ///   - sealed: The ciphertext followed by its 16-byte tag.
  ///   - key: The key it was sealed with.
  ///   - nonce: The nonce it was sealed with.
  ///   - associatedData: The associated data it was sealed with.
  ///   - output: Exactly `sealed.count - 16` bytes for the plaintext. It may start at `sealed`
  ///     (decryption in place) but must not otherwise overlap it.
  /// - Throws: ``CryptoError/authenticationFailed`` if the tag does not match;
  ///   ``CryptoError/invalidLength(what:expected:found:)`` if `sealed` is shorter than a tag.
  package static func open(
    _ sealed: UnsafeRawBufferPointer, key: Key, nonce: Nonce,
    associatedData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) throws(CryptoError) {
    guard sealed.count >= tagByteCount else {
      throw .invalidLength(
        what: "sealed message", expected: "at least 16 bytes (the tag)", found: sealed.count)
    }
    let count = sealed.count - tagByteCount
    precondition(
      output.count == count, "ChaCha20Poly1305.open: output must be sealed.count - 16 bytes")
    let cipher = makeCipher(key: key, nonce: nonce)
    var first = cipher.batch(startingAt: 0)
    let ciphertext = UnsafeRawBufferPointer(rebasing: sealed[..<count])
    let expected = authenticate(ciphertext, associatedData: associatedData, keyBlock: &first)
    let received = (
      UInt64(littleEndian: sealed.loadUnaligned(fromByteOffset: count, as: UInt64.self)),
      UInt64(littleEndian: sealed.loadUnaligned(fromByteOffset: count + 8, as: UInt64.self))
    )
    // Constant time: every bit of both tags is looked at whatever the first difference.
    let difference = (expected.0 ^ received.0) | (expected.1 ^ received.1)
    guard difference == 0 else { throw .authenticationFailed }
    if let source = ciphertext.baseAddress, let target = output.baseAddress {
      cipher.xor(source, into: target, count: count, counter: 1, made: first)
    }
  }

  // MARK: Construction

  /// The cipher for one key and nonce.
  private static func makeCipher(key: Key, nonce: Nonce) -> ChaCha20 {
    key.withUnsafeBytes { keyBytes in
      nonce.withUnsafeBytes { nonceBytes in ChaCha20(key: keyBytes, nonce: nonceBytes) }
    }
  }

  /// The tag of RFC 8439 §2.8: Poly1305, keyed by the first 32 bytes of keystream block 0, over
  /// `aad | pad16 | ciphertext | pad16 | len(aad) as u64le | len(ciphertext) as u64le`.
  /// - Parameter keyBlock: A batch that holds block 0.
  static func authenticate(
    _ ciphertext: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
    keyBlock: inout ChaCha20.Batch
  ) -> (UInt64, UInt64) {
    var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
      0, 0, 0, 0, 0, 0, 0, 0
    )
    var authenticator = withUnsafeMutableBytes(of: &block) { bytes in
      if let base = bytes.baseAddress { ChaCha20.keystreamBlock(0, of: &keyBlock, into: base) }
      return Poly1305(key: UnsafeRawBufferPointer(rebasing: bytes[..<Poly1305.keyByteCount]))
    }
    block = (0, 0, 0, 0, 0, 0, 0, 0)
    authenticator.update(associatedData)
    authenticator.padToBlock()
    authenticator.update(ciphertext)
    authenticator.padToBlock()
    var lengths = (
      UInt64(associatedData.count).littleEndian, UInt64(ciphertext.count).littleEndian
    )
    withUnsafeBytes(of: &lengths) { authenticator.update($0) }
    return authenticator.finalize()
  }

  // MARK: Helpers

  /// Calls `body` with the bytes of `collection`, in place when they are contiguous.
  /// (Inlinable: `SealedRecord.seal`'s callers in other modules reach their bytes through it.)
  @inlinable
  static func withContiguousBytes<Result>(
    _ collection: some Collection<UInt8>,
    _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> Result
  ) throws(CryptoError) -> Result {
    let inPlace = collection.withContiguousStorageIfAvailable { buffer in
      Swift.Result { () throws(CryptoError) in try body(UnsafeRawBufferPointer(buffer)) }
    }
    if let inPlace { return try inPlace.get() }
    let copy = Array(collection)
    return try copy.withUnsafeBytes { buffer in
      Swift.Result { () throws(CryptoError) in try body(buffer) }
    }.get()
  }

  /// An array of `count` bytes (zeros until `body` fills them), filled by `body`.
  static func makeArray(
    count: Int, _ body: (UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void
  ) throws(CryptoError) -> [UInt8] {
    var failure: CryptoError?
    let array = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      buffer.initialize(repeating: 0)
      do throws(CryptoError) {
        try body(UnsafeMutableRawBufferPointer(buffer))
      } catch {
        failure = error
      }
      initialized = count
    }
    if let failure { throw failure }
    return array
  }
}
