import Foundation

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

    /// The associated data of the cipher.
    var associatedData: [UInt8] {
      var bytes = Array("replay/personal/v1".utf8)
      bytes.append(0)
      bytes += Array(eventID.description.utf8)
      bytes.append(0)
      bytes += Array(stream.utf8)
      bytes.append(0)
      bytes += Array(type.utf8)
      return bytes
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
  public static func seal(
    _ plaintext: some Collection<UInt8>, key: ChaCha20Poly1305.Key,
    nonce: ChaCha20Poly1305.Nonce, binding: Binding
  ) throws(CryptoError) -> SealedRecord {
    let sealed = try ChaCha20Poly1305.seal(
      plaintext, key: key, nonce: nonce, associatedData: binding.associatedData)
    return SealedRecord(bytes: nonce.bytes + sealed)
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
    return try ChaCha20Poly1305.open(
      bytes[nonceCount...], key: key, nonce: nonce, associatedData: binding.associatedData)
  }

  /// The record as it is stored in a payload: standard base64 with padding.
  public var text: String { Data(bytes).base64EncodedString() }

  /// The record stored as `text`, or `nil` when it is not base64.
  public init?(text: String) {
    guard let data = Data(base64Encoded: text) else { return nil }
    bytes = Array(data)
  }

  /// The record whose base64 text is `text` (UTF-8 bytes), or `nil` as `init(text:)`: the
  /// same decoder, Foundation's, without making a `String` first.
  init?(base64 text: UnsafeBufferPointer<UInt8>) {
    guard let data = Data(base64Encoded: Data(buffer: text)) else { return nil }
    bytes = Array(data)
  }
}
