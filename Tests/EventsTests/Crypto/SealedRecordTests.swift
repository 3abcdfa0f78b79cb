import Events
import Testing

@Suite struct SealedRecordTests {
  private let binding = SealedRecord.Binding(
    eventID: EventID(high: 0x1111_0000_0000_4000, low: 0x8000_0000_0000_0001),
    stream: "contact-13", type: "ContactAdded")

  @Test func aRecordOpensWithItsKeyForItsEventOnly() throws {
    let key = try ChaCha20Poly1305.Key.random()
    let plaintext = Array(
      #"{"name":"Miss Piggy","emailAddress":"Miss.Piggy@muppetsbaby.com"}"#.utf8)
    let sealed = try SealedRecord.seal(plaintext, key: key, binding: binding)
    #expect(sealed.bytes.count == 12 + plaintext.count + 16)
    #expect(try sealed.open(key: key, binding: binding) == plaintext)
    // Round trip through its text form.
    let text = sealed.text
    #expect(SealedRecord(text: text) == sealed)
    #expect(!text.contains("Piggy"))
    // Another key, another event, another stream, another type: refused.
    #expect(throws: CryptoError.authenticationFailed) {
      try sealed.open(key: try ChaCha20Poly1305.Key.random(), binding: binding)
    }
    for other in [
      SealedRecord.Binding(
        eventID: EventID(high: 0x1111_0000_0000_4000, low: 0x8000_0000_0000_0002),
        stream: "contact-13", type: "ContactAdded"),
      SealedRecord.Binding(eventID: binding.eventID, stream: "contact-14", type: "ContactAdded"),
      SealedRecord.Binding(eventID: binding.eventID, stream: "contact-13", type: "ContactUpdated"),
    ] {
      #expect(throws: CryptoError.authenticationFailed) {
        try sealed.open(key: key, binding: other)
      }
    }
    // Any changed byte is refused.
    for index in [0, 12, sealed.bytes.count - 1] {
      var changed = sealed
      changed.bytes[index] ^= 0x01
      #expect(throws: CryptoError.authenticationFailed) {
        try changed.open(key: key, binding: binding)
      }
    }
  }

  @Test func twoSealsOfTheSameDataDiffer() throws {
    let key = try ChaCha20Poly1305.Key.random()
    let first = try SealedRecord.seal(Array("x".utf8), key: key, binding: binding)
    let second = try SealedRecord.seal(Array("x".utf8), key: key, binding: binding)
    #expect(first != second)
  }

  @Test func tooShortOrNotBase64IsRefusedNotTrapped() throws {
    let key = try ChaCha20Poly1305.Key.random()
    #expect(throws: CryptoError.self) {
      try SealedRecord(bytes: [UInt8](repeating: 0, count: 27)).open(key: key, binding: binding)
    }
    #expect(SealedRecord(text: "not base64!") == nil)
  }
}
