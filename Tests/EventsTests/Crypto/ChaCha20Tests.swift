import Testing

@testable import Events

/// ChaCha20 against RFC 8439 §2.1.1, §2.2.1, §2.3.2, §2.4.2 and Appendix A.1–A.2
/// (the vectors are in RFC8439Vectors.swift, with where they come from).
@Suite struct ChaCha20Tests {
  @Test func quarterRoundMatchesSection2_1_1() {
    var (a, b, c, d) = (
      RFC8439.quarterRoundInput[0], RFC8439.quarterRoundInput[1],
      RFC8439.quarterRoundInput[2], RFC8439.quarterRoundInput[3]
    )
    ChaCha20.quarterRound(&a, &b, &c, &d)
    #expect([a, b, c, d] == RFC8439.quarterRoundOutput)
  }

  @Test func quarterRoundOnTheStateMatchesSection2_2_1() {
    var state = RFC8439.stateBefore
    var (a, b, c, d) = (state[2], state[7], state[8], state[13])
    ChaCha20.quarterRound(&a, &b, &c, &d)
    (state[2], state[7], state[8], state[13]) = (a, b, c, d)
    #expect(state == RFC8439.stateAfter)
  }

  @Test(arguments: RFC8439.blocks)
  func blockFunctionMatchesRFC(_ vector: RFC8439.Block) {
    let cipher = ChaCha20(hexKey: vector.key, hexNonce: vector.nonce)
    var block = [UInt8](repeating: 0, count: 64)
    block.withUnsafeMutableBytes { bytes in
      if let base = bytes.baseAddress { cipher.keystreamBlock(counter: vector.counter, into: base) }
    }
    #expect(block.hex == vector.keystream)
    // XOR over zeros is the keystream itself: the encryption path agrees with the block path.
    #expect(cipher.xor([UInt8](repeating: 0, count: 64), counter: vector.counter) == block)
  }

  @Test(arguments: RFC8439.encryptions)
  func encryptionMatchesRFC(_ vector: RFC8439.Encryption) {
    let cipher = ChaCha20(hexKey: vector.key, hexNonce: vector.nonce)
    let plaintext = [UInt8](hex: vector.plaintext)
    let ciphertext = cipher.xor(plaintext, counter: vector.counter)
    #expect(ciphertext.hex == vector.ciphertext)
    #expect(cipher.xor(ciphertext, counter: vector.counter) == plaintext)
  }

  @Test func encryptionInPlaceEqualsEncryptionIntoAnotherBuffer() {
    let vector = RFC8439.encryptions[0]
    let cipher = ChaCha20(hexKey: vector.key, hexNonce: vector.nonce)
    var buffer = [UInt8](hex: vector.plaintext)
    buffer.withUnsafeMutableBytes { bytes in
      if let base = bytes.baseAddress {
        cipher.xor(base, into: base, count: bytes.count, counter: vector.counter)
      }
    }
    #expect(buffer.hex == vector.ciphertext)
  }

  @Test func everyLengthAcrossBlockBoundariesEqualsThePrefixOfOneLongEncryption() {
    // Each message is the head of the same keystream: length n must give the first n bytes of
    // the 300-byte result, whatever the partial-block path does.
    let vector = RFC8439.encryptions[0]
    let cipher = ChaCha20(hexKey: vector.key, hexNonce: vector.nonce)
    let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let whole = cipher.xor(message, counter: 5)
    for length in 0...300 {
      #expect(cipher.xor(Array(message[..<length]), counter: 5) == Array(whole[..<length]))
    }
  }
}
