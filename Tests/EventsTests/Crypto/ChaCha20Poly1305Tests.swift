import Testing

@testable import Events

/// The AEAD against RFC 8439 §2.8.2 and Appendix A.5 (the vectors are in RFC8439Vectors.swift,
/// with where they come from), and against tampering.
@Suite struct ChaCha20Poly1305Tests {
  typealias AEAD = ChaCha20Poly1305

  struct Message {
    var key: AEAD.Key
    var nonce: AEAD.Nonce
    var associatedData: [UInt8]
    var plaintext: [UInt8]
    var sealed: [UInt8]

    init(_ vector: RFC8439.AEAD) throws {
      key = try AEAD.Key(bytes: [UInt8](hex: vector.key))
      nonce = try AEAD.Nonce(bytes: [UInt8](hex: vector.nonce))
      associatedData = [UInt8](hex: vector.associatedData)
      plaintext = [UInt8](hex: vector.plaintext)
      sealed = [UInt8](hex: vector.ciphertext) + [UInt8](hex: vector.tag)
    }
  }

  @Test(arguments: RFC8439.aeads)
  func sealMatchesRFC(_ vector: RFC8439.AEAD) throws {
    let message = try Message(vector)
    let sealed = try AEAD.seal(
      message.plaintext, key: message.key, nonce: message.nonce,
      associatedData: message.associatedData)
    #expect(Array(sealed.dropLast(16)).hex == vector.ciphertext)
    #expect(Array(sealed.suffix(16)).hex == vector.tag)
  }

  @Test(arguments: RFC8439.aeads)
  func openMatchesRFC(_ vector: RFC8439.AEAD) throws {
    let message = try Message(vector)
    let opened = try AEAD.open(
      message.sealed, key: message.key, nonce: message.nonce,
      associatedData: message.associatedData)
    #expect(opened == message.plaintext)
  }

  @Test(arguments: RFC8439.aeads)
  func changingAnyByteOfCiphertextOrTagFailsToOpen(_ vector: RFC8439.AEAD) throws {
    let message = try Message(vector)
    var accepted: [Int] = []
    for position in message.sealed.indices {
      for flip: UInt8 in [0x01, 0x80, 0xFF] {
        var tampered = message.sealed
        tampered[position] ^= flip
        do {
          _ = try AEAD.open(
            tampered, key: message.key, nonce: message.nonce,
            associatedData: message.associatedData)
          accepted.append(position)
        } catch {
          #expect(error == .authenticationFailed)
        }
      }
    }
    #expect(accepted.isEmpty, "tampered bytes accepted at \(accepted.prefix(5))")
  }

  @Test(arguments: RFC8439.aeads)
  func changingAssociatedDataKeyOrNonceFailsToOpen(_ vector: RFC8439.AEAD) throws {
    let message = try Message(vector)
    for position in message.associatedData.indices {
      var data = message.associatedData
      data[position] ^= 0x01
      #expect(throws: CryptoError.authenticationFailed) {
        try AEAD.open(message.sealed, key: message.key, nonce: message.nonce, associatedData: data)
      }
    }
    // Associated data one byte longer or shorter, and none at all.
    for data in [message.associatedData + [0], Array(message.associatedData.dropLast()), []] {
      #expect(throws: CryptoError.authenticationFailed) {
        try AEAD.open(message.sealed, key: message.key, nonce: message.nonce, associatedData: data)
      }
    }
    var keyBytes = [UInt8](hex: vector.key)
    keyBytes[31] ^= 0x01
    let otherKey = try AEAD.Key(bytes: keyBytes)
    #expect(throws: CryptoError.authenticationFailed) {
      try AEAD.open(
        message.sealed, key: otherKey, nonce: message.nonce,
        associatedData: message.associatedData)
    }
    var nonceBytes = [UInt8](hex: vector.nonce)
    nonceBytes[0] ^= 0x01
    let otherNonce = try AEAD.Nonce(bytes: nonceBytes)
    #expect(throws: CryptoError.authenticationFailed) {
      try AEAD.open(
        message.sealed, key: message.key, nonce: otherNonce,
        associatedData: message.associatedData)
    }
    // Truncated by one byte: a different tag position, so a different (wrong) tag.
    #expect(throws: CryptoError.authenticationFailed) {
      try AEAD.open(
        Array(message.sealed.dropLast()), key: message.key, nonce: message.nonce,
        associatedData: message.associatedData)
    }
  }

  @Test func aFailedOpenWritesNothingToTheOutput() throws {
    let message = try Message(RFC8439.aeads[0])
    var tampered = message.sealed
    tampered[0] ^= 0x01
    var output = [UInt8](repeating: 0xA5, count: message.plaintext.count)
    #expect(throws: CryptoError.authenticationFailed) {
      try tampered.withUnsafeBytes { sealed in
        try message.associatedData.withUnsafeBytes { data in
          try output.withUnsafeMutableBytes { target in
            try AEAD.open(
              sealed, key: message.key, nonce: message.nonce, associatedData: data, into: target)
          }
        }
      }
    }
    #expect(output == [UInt8](repeating: 0xA5, count: message.plaintext.count))
  }

  @Test func sealedMessagesShorterThanATagAreRejectedWithTheirLength() throws {
    let message = try Message(RFC8439.aeads[0])
    #expect(
      throws: CryptoError.invalidLength(
        what: "sealed message", expected: "at least 16 bytes (the tag)", found: 15)
    ) {
      try AEAD.open(
        [UInt8](repeating: 0, count: 15), key: message.key, nonce: message.nonce,
        associatedData: [UInt8]())
    }
  }

  @Test func sealThenOpenRoundTripsForRandomLengthsUpTo1000() throws {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for length in 0...1000 {
      let key = try AEAD.Key(bytes: random.bytes(count: 32))
      let nonce = try AEAD.Nonce(bytes: random.bytes(count: 12))
      let plaintext = random.bytes(count: length)
      let associatedData = random.bytes(count: Int.random(in: 0...40, using: &random))
      let sealed = try AEAD.seal(
        plaintext, key: key, nonce: nonce, associatedData: associatedData)
      #expect(sealed.count == length + 16, "seed \(seed)")
      let opened = try AEAD.open(sealed, key: key, nonce: nonce, associatedData: associatedData)
      #expect(opened == plaintext, "length \(length), seed \(seed)")
      // In place, through the buffer API: the same bytes.
      var buffer = plaintext + [UInt8](repeating: 0, count: 16)
      try buffer.withUnsafeMutableBytes { whole in
        try associatedData.withUnsafeBytes { data in
          try AEAD.seal(
            UnsafeRawBufferPointer(rebasing: whole[..<length]), key: key, nonce: nonce,
            associatedData: data, into: whole)
        }
      }
      #expect(buffer == sealed, "in place, length \(length), seed \(seed)")
    }
  }

  @Test func keysComeFromTheSecureSourceAndNeverPrintTheirBytes() throws {
    let key = try AEAD.Key.random()
    let other = try AEAD.Key.random()
    #expect(key != other)
    #expect(key == key)
    let bytes = key.withUnsafeBytes { Array($0) }
    #expect(try AEAD.Key(bytes: bytes) == key)
    #expect("\(key)" == "Key(<redacted>)")
    #expect(String(reflecting: key) == "Key(<redacted>)")
    var dumped = ""
    dump(key, to: &dumped)
    // Neither hex nor decimal renderings of any key byte pair appear.
    #expect(!dumped.contains(Array(bytes[..<4]).hex), "\(dumped)")
    #expect(!dumped.contains("\(bytes[0]), \(bytes[1])"), "\(dumped)")
  }

  @Test func keysAndNoncesOfTheWrongLengthAreRejected() {
    #expect(throws: CryptoError.invalidLength(what: "key", expected: "32 bytes", found: 31)) {
      try AEAD.Key(bytes: [UInt8](repeating: 0, count: 31))
    }
    #expect(throws: CryptoError.invalidLength(what: "nonce", expected: "12 bytes", found: 8)) {
      try AEAD.Nonce(bytes: [UInt8](repeating: 0, count: 8))
    }
  }

  @Test func randomNoncesDifferAndRoundTripTheirBytes() throws {
    let first = try AEAD.Nonce.random()
    let second = try AEAD.Nonce.random()
    #expect(first != second)
    #expect(first.bytes.count == 12)
    #expect(try AEAD.Nonce(bytes: first.bytes) == first)
  }
}
