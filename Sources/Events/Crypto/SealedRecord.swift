/// Personal data sealed for one event: ChaCha20-Poly1305 under the person's key, with a fresh
/// random nonce, bound to the event it belongs to.
///
/// The associated data is `replay/personal/v1`, then the event's id, stream and type, each
/// after a zero byte: a sealed record copied into another event (another contact's, or another
/// type) fails to open. The text form, stored in a payload, is the standard base64 of
/// `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`.
///
/// One record per event holds all of its personal fields (a JSON object): one nonce, one tag
/// and one pass of the cipher, not one per field.
public struct SealedRecord: Sendable, Hashable {
  /// The nonce, the ciphertext and the tag.
  public var bytes: [UInt8]

  /// What a record is bound to.
  public struct Binding: Sendable, Equatable {
    public var eventID: EventID
    public var stream: String
    public var type: String

    public init(eventID: EventID, stream: String, type: String) {
      self.eventID = eventID
      self.stream = stream
      self.type = type
    }

    /// Calls `body` with the associated data of the cipher, made on the stack.
    func withAssociatedData<Result>(
      _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> Result
    ) throws(CryptoError) -> Result {
      let domain: StaticString = "replay/personal/v1"
      var stream = stream
      var type = type
      // The closures return a `Result`: `withUTF8` does not carry a typed error through.
      let made = stream.withUTF8 { streamBytes in
        type.withUTF8 { typeBytes in
          let count =
            domain.utf8CodeUnitCount + 1 + 36 + 1 + streamBytes.count + 1 + typeBytes.count
          return withUnsafeTemporaryAllocation(byteCount: count, alignment: 8) { data in
            Swift.Result { () throws(CryptoError) in
              guard let base = data.baseAddress else {
                return try body(UnsafeRawBufferPointer(data))
              }
              var position = domain.utf8CodeUnitCount
              base.copyMemory(from: domain.utf8Start, byteCount: position)
              base.storeBytes(of: 0, toByteOffset: position, as: UInt8.self)
              eventID.writeText(to: base + position + 1)
              position += 37
              func add(_ part: UnsafeBufferPointer<UInt8>) {
                base.storeBytes(of: 0, toByteOffset: position, as: UInt8.self)
                if let source = part.baseAddress {
                  (base + position + 1).copyMemory(from: source, byteCount: part.count)
                }
                position += 1 + part.count
              }
              add(streamBytes)
              add(typeBytes)
              return try body(UnsafeRawBufferPointer(data))
            }
          }
        }
      }
      return try made.get()
    }
  }

  public init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Seals `plaintext` under `key` for the event `binding` names, with a new random nonce.
  /// - Throws: `CryptoError` when the system's random source fails.
  public static func seal(
    _ plaintext: some Collection<UInt8>, key: ChaCha20Poly1305.Key, binding: Binding
  ) throws(CryptoError) -> SealedRecord {
    try seal(plaintext, key: key, nonce: try ChaCha20Poly1305.Nonce.random(), binding: binding)
  }

  /// Seals `plaintext` under `key` with `nonce`, which must never have been used with `key`.
  ///
  /// Inlinable, so that a caller in another module passes its bytes in place: unspecialised,
  /// the generic walk to them cost about 4,600 instructions a seal.
  @inlinable
  public static func seal(
    _ plaintext: some Collection<UInt8>, key: ChaCha20Poly1305.Key,
    nonce: ChaCha20Poly1305.Nonce, binding: Binding
  ) throws(CryptoError) -> SealedRecord {
    try ChaCha20Poly1305.withContiguousBytes(plaintext) { (bytes) throws(CryptoError) in
      try seal(bytes: bytes, key: key, nonce: nonce, binding: binding)
    }
  }

  /// Seals `plaintext`: the nonce, the ciphertext and the tag written into one array.
  @usableFromInline
  static func seal(
    bytes plaintext: UnsafeRawBufferPointer, key: ChaCha20Poly1305.Key,
    nonce: ChaCha20Poly1305.Nonce, binding: Binding
  ) throws(CryptoError) -> SealedRecord {
    let nonceCount = ChaCha20Poly1305.Nonce.byteCount
    let count = nonceCount + plaintext.count + ChaCha20Poly1305.tagByteCount
    let bytes = try ChaCha20Poly1305.makeArray(count: count) { (output) throws(CryptoError) in
      nonce.withUnsafeBytes { output.copyMemory(from: $0) }
      try binding.withAssociatedData { (data) throws(CryptoError) in
        try ChaCha20Poly1305.seal(
          plaintext, key: key, nonce: nonce, associatedData: data,
          into: UnsafeMutableRawBufferPointer(rebasing: output[nonceCount...]))
      }
    }
    return SealedRecord(bytes: bytes)
  }

  /// The plaintext, when `key` opens the record for the event `binding` names.
  /// - Throws: `CryptoError.authenticationFailed` for another key, another event, or changed
  ///   bytes; `.invalidLength` for a record too short to hold a nonce and a tag.
  public func open(key: ChaCha20Poly1305.Key, binding: Binding) throws(CryptoError) -> [UInt8] {
    let nonceCount = ChaCha20Poly1305.Nonce.byteCount
    guard bytes.count >= nonceCount + ChaCha20Poly1305.tagByteCount else {
      throw .invalidLength(
        what: "sealed record", expected: "at least 28 bytes (a nonce and a tag)",
        found: bytes.count)
    }
    let nonce = try ChaCha20Poly1305.Nonce(bytes: bytes[..<nonceCount])
    // Straight into the result through the buffer variant: the collection variant's walk to
    // the bytes cost about 90 instructions a replayed event.
    let count = bytes.count - nonceCount - ChaCha20Poly1305.tagByteCount
    return try ChaCha20Poly1305.withContiguousBytes(bytes[nonceCount...]) {
      (sealed) throws(CryptoError) in
      try ChaCha20Poly1305.makeArray(count: count) { (output) throws(CryptoError) in
        try binding.withAssociatedData { (data) throws(CryptoError) in
          try ChaCha20Poly1305.open(
            sealed, key: key, nonce: nonce, associatedData: data, into: output)
        }
      }
    }
  }

  /// The record as it is stored in a payload: standard base64 with padding.
  public var text: String {
    String(decoding: bytes.withUnsafeBytes { Base64.encode($0) }, as: UTF8.self)
  }

  /// The record stored as `text`, or `nil` when it is not canonical standard base64.
  public init?(text: String) {
    var text = text
    guard let bytes = text.withUTF8({ Base64.decode($0) }) else { return nil }
    self.bytes = bytes
  }

  /// The record whose base64 text is `text` (UTF-8 bytes), or `nil` as `init(text:)`: the
  /// same decoder, straight from the payload's bytes.
  init?(base64 text: UnsafeBufferPointer<UInt8>) {
    guard let bytes = Base64.decode(text) else { return nil }
    self.bytes = bytes
  }
}
