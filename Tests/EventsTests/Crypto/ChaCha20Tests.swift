import Testing

@testable import Events

/// ChaCha20 against RFC 8439 §2.1.1, §2.2.1, §2.3.2, §2.4.2 and Appendix A.1–A.2
/// (the vectors are in RFC8439Vectors.swift, with where they come from).
@Suite struct ChaCha20Tests {
  @Test func quarterRoundMatchesSection2_1_1() {
    // Every lane is a quarter of its own: the same input in each gives the same output in each.
    let input = RFC8439.quarterRoundInput
    var (a, b, c, d) = (
      ChaCha20.Row(repeating: input[0]), ChaCha20.Row(repeating: input[1]),
      ChaCha20.Row(repeating: input[2]), ChaCha20.Row(repeating: input[3])
    )
    ChaCha20.quarterRound(&a, &b, &c, &d)
    for lane in 0..<4 {
      #expect([a[lane], b[lane], c[lane], d[lane]] == RFC8439.quarterRoundOutput)
    }
  }

  @Test func quarterRoundOnTheStateMatchesSection2_2_1() {
    // The state's quarter (2, 7, 8, 13) in lane 2, the other lanes left at other words: only
    // lane 2's words may change as the RFC says, and the lanes do not mix.
    var state = RFC8439.stateBefore
    var (a, b, c, d) = (
      ChaCha20.Row(state[0], state[1], state[2], state[3]),
      ChaCha20.Row(state[4], state[5], state[7], state[6]),
      ChaCha20.Row(state[9], state[10], state[8], state[11]),
      ChaCha20.Row(state[14], state[15], state[13], state[12])
    )
    let input = RFC8439.quarterRoundInput
    (a[0], b[0], c[0], d[0]) = (input[0], input[1], input[2], input[3])
    ChaCha20.quarterRound(&a, &b, &c, &d)
    (state[2], state[7], state[8], state[13]) = (a[2], b[2], c[2], d[2])
    #expect(state == RFC8439.stateAfter)
    #expect([a[0], b[0], c[0], d[0]] == RFC8439.quarterRoundOutput)
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

  @Test func aBatchMadeBeforeIsUsedOnlyWhereItHoldsTheBlocks() {
    // The AEAD hands over blocks 0 to 3; any batch must give the same bytes as none.
    let vector = RFC8439.encryptions[0]
    let cipher = ChaCha20(hexKey: vector.key, hexNonce: vector.nonce)
    let message = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    let expected = cipher.xor(message, counter: 1)
    for start: UInt32 in [0, 1, 2, 3, 4, 9] {
      let made = cipher.batch(startingAt: start)
      var output = message
      output.withUnsafeMutableBytes { bytes in
        if let base = bytes.baseAddress {
          cipher.xor(base, into: base, count: bytes.count, counter: 1, made: made)
        }
      }
      #expect(output == expected, "a batch from block \(start)")
    }
  }
}
