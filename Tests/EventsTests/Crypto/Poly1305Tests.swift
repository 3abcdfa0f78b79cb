import Testing

@testable import Events

/// Poly1305 against RFC 8439 §2.5.2, §2.6.2 and Appendix A.3–A.4 (the vectors are in
/// RFC8439Vectors.swift, with where they come from).
@Suite struct Poly1305Tests {
  @Test(arguments: RFC8439.macs)
  func tagMatchesRFC(_ vector: RFC8439.MAC) {
    let key = [UInt8](hex: vector.key)
    let message = [UInt8](hex: vector.message)
    let tag = message.withUnsafeBytes { bytes in
      key.withUnsafeBytes { Poly1305.authenticate(bytes, key: $0) }
    }
    #expect(tagBytes(tag).hex == vector.tag)
  }

  @Test(arguments: RFC8439.macs)
  func tagDoesNotDependOnHowTheMessageIsSplit(_ vector: RFC8439.MAC) {
    let key = [UInt8](hex: vector.key)
    let message = [UInt8](hex: vector.message)
    for pieceLength in [1, 3, 15, 16, 17, 40] {
      var authenticator = key.withUnsafeBytes { Poly1305(key: $0) }
      message.withUnsafeBytes { bytes in
        var start = 0
        while start < bytes.count {
          let end = min(bytes.count, start + pieceLength)
          authenticator.update(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
          start = end
        }
      }
      #expect(tagBytes(authenticator.finalize()).hex == vector.tag, "pieces of \(pieceLength)")
    }
  }

  @Test(arguments: RFC8439.keyGenerations)
  func oneTimeKeyGenerationMatchesRFC(_ vector: RFC8439.KeyGeneration) {
    let cipher = ChaCha20(hexKey: vector.key, hexNonce: vector.nonce)
    var block = [UInt8](repeating: 0, count: 64)
    block.withUnsafeMutableBytes { bytes in
      if let base = bytes.baseAddress { cipher.keystreamBlock(counter: 0, into: base) }
    }
    #expect(Array(block[..<32]).hex == vector.oneTimeKey)
  }
}
