/// The ChaCha20 stream cipher of RFC 8439 §2.3–2.4: a 256-bit key, a 96-bit nonce and a 32-bit
/// block counter give 64-byte keystream blocks, XORed with the message.
///
/// Internal: the only public use is inside ``ChaCha20Poly1305``, which adds the authentication
/// that a bare stream cipher lacks. The state lives in registers and stack tuples; nothing is
/// allocated per block.
struct ChaCha20 {
  /// The key as eight little-endian words (RFC 8439 §2.3: state words 4–11).
  private let key: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
  /// The nonce as three little-endian words (state words 13–15).
  private let nonce: (UInt32, UInt32, UInt32)

  /// The length of one keystream block, in bytes.
  static let blockByteCount = 64

  /// A cipher for one key and nonce.
  /// - Precondition: `key` holds 32 bytes and `nonce` 12 (callers check lengths first).
  init(key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer) {
    precondition(
      key.count == 32 && nonce.count == 12, "ChaCha20 needs a 32-byte key, 12-byte nonce")
    func word(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
      UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
    }
    self.key = (
      word(key, 0), word(key, 1), word(key, 2), word(key, 3),
      word(key, 4), word(key, 5), word(key, 6), word(key, 7)
    )
    self.nonce = (word(nonce, 0), word(nonce, 1), word(nonce, 2))
  }

  /// The quarter round of RFC 8439 §2.1 on four state words.
  @inline(__always)
  static func quarterRound(
    _ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32
  ) {
    a &+= b
    d ^= a
    d = d &<< 16 | d &>> 16
    c &+= d
    b ^= c
    b = b &<< 12 | b &>> 20
    a &+= b
    d ^= a
    d = d &<< 8 | d &>> 24
    c &+= d
    b ^= c
    b = b &<< 7 | b &>> 25
  }

  /// Runs the block function (RFC 8439 §2.3) for `counter` and hands each of the 16 output words
  /// to `emit(index, word)` in order; the caller serialises or XORs them.
  @inline(__always)
  private func block(counter: UInt32, _ emit: (Int, UInt32) -> Void) {
    // "expand 32-byte k"
    let (c0, c1, c2, c3): (UInt32, UInt32, UInt32, UInt32) = (
      0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574
    )
    var (x0, x1, x2, x3) = (c0, c1, c2, c3)
    var (x4, x5, x6, x7, x8, x9, x10, x11) = key
    var x12 = counter
    var (x13, x14, x15) = nonce
    for _ in 0..<10 {
      // A column round, then a diagonal round.
      Self.quarterRound(&x0, &x4, &x8, &x12)
      Self.quarterRound(&x1, &x5, &x9, &x13)
      Self.quarterRound(&x2, &x6, &x10, &x14)
      Self.quarterRound(&x3, &x7, &x11, &x15)
      Self.quarterRound(&x0, &x5, &x10, &x15)
      Self.quarterRound(&x1, &x6, &x11, &x12)
      Self.quarterRound(&x2, &x7, &x8, &x13)
      Self.quarterRound(&x3, &x4, &x9, &x14)
    }
    emit(0, x0 &+ c0)
    emit(1, x1 &+ c1)
    emit(2, x2 &+ c2)
    emit(3, x3 &+ c3)
    emit(4, x4 &+ key.0)
    emit(5, x5 &+ key.1)
    emit(6, x6 &+ key.2)
    emit(7, x7 &+ key.3)
    emit(8, x8 &+ key.4)
    emit(9, x9 &+ key.5)
    emit(10, x10 &+ key.6)
    emit(11, x11 &+ key.7)
    emit(12, x12 &+ counter)
    emit(13, x13 &+ nonce.0)
    emit(14, x14 &+ nonce.1)
    emit(15, x15 &+ nonce.2)
  }

  /// Writes the 64-byte keystream block for `counter` (the serialised block function output).
  /// - Parameter output: At least 64 writable bytes, any alignment.
  func keystreamBlock(counter: UInt32, into output: UnsafeMutableRawPointer) {
    block(counter: counter) { index, word in
      output.storeBytes(of: word.littleEndian, toByteOffset: index * 4, as: UInt32.self)
    }
  }

  /// XORs `count` bytes of `input` with the keystream starting at block `counter`, into `output`.
  ///
  /// Encryption and decryption are the same operation. `input` and `output` may be the same
  /// memory (in place), but must not otherwise overlap.
  /// - Precondition: the message fits in the blocks left before the counter wraps.
  /// - Complexity: O(`count`).
  func xor(
    _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int,
    counter: UInt32
  ) {
    let blocks = count / Self.blockByteCount
    precondition(
      UInt64(counter) + UInt64(blocks) + (count % Self.blockByteCount == 0 ? 0 : 1)
        <= UInt64(UInt32.max) + 1,
      "ChaCha20: message too long for a 32-bit block counter")
    var offset = 0
    var blockCounter = counter
    for _ in 0..<blocks {
      let source = input + offset
      let target = output + offset
      block(counter: blockCounter) { index, word in
        let plain = UInt32(
          littleEndian: source.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        target.storeBytes(of: (plain ^ word).littleEndian, toByteOffset: index * 4, as: UInt32.self)
      }
      offset += Self.blockByteCount
      blockCounter &+= 1
    }
    let tail = count - offset
    guard tail > 0 else { return }
    // The last, partial block: make a whole keystream block on the stack and use its head.
    var keystream: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
      0, 0, 0, 0, 0, 0, 0, 0
    )
    withUnsafeMutableBytes(of: &keystream) { stream in
      guard let streamBase = stream.baseAddress else { return }
      keystreamBlock(counter: blockCounter, into: streamBase)
      for index in 0..<tail {
        let byte = input.load(fromByteOffset: offset + index, as: UInt8.self) ^ stream[index]
        output.storeBytes(of: byte, toByteOffset: offset + index, as: UInt8.self)
      }
    }
  }
}
