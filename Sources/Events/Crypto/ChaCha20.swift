/// The ChaCha20 stream cipher of RFC 8439 §2.3–2.4: a 256-bit key, a 96-bit nonce and a 32-bit
/// block counter give 64-byte keystream blocks, XORed with the message.
///
/// Blocks are made four at a time, one per lane of SIMD registers: row `i` of a ``Batch`` holds
/// state word `i` of four consecutive blocks, so each quarter round is four lane-wise additions,
/// XORs and rotations, with nothing moved between lanes.
///
/// Internal: the only public use is inside ``ChaCha20Poly1305``, which adds the authentication
/// that a bare stream cipher lacks. The state lives in registers and on the stack; nothing is
/// allocated.
struct ChaCha20 {
  /// Four lanes, one per block of a batch.
  typealias Row = SIMD4<UInt32>

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

  /// Rotates every lane of `row` left by `count` bits.
  @inline(__always)
  private static func rotated(_ row: Row, _ count: UInt32) -> Row {
    // `&+`, not `|` (the two halves share no bits): LLVM turns `a << n | a >> (32 - n)` into a
    // rotate, which x86-64 without AVX-512 then does lane by lane with scalar `rol`s and moves
    // between registers; written as a sum it stays two vector shifts and an OR.
    (row &<< count) &+ (row &>> (32 &- count))
  }

  /// The quarter round of RFC 8439 §2.1, on four quarters at once: lane `i` of `a`, `b`, `c`
  /// and `d` is one quarter.
  @inline(__always)
  static func quarterRound(_ a: inout Row, _ b: inout Row, _ c: inout Row, _ d: inout Row) {
    a &+= b
    d ^= a
    d = rotated(d, 16)
    c &+= d
    b ^= c
    b = rotated(b, 12)
    a &+= b
    d ^= a
    d = rotated(d, 8)
    c &+= d
    b ^= c
    b = rotated(b, 7)
  }

  /// Four consecutive keystream blocks: word `i` of block `first + j` is lane `j` of row `i`.
  struct Batch {
    /// The counter of the block in lane 0.
    let first: UInt32
    /// The 16 rows, in state-word order.
    var rows: (Row, Row, Row, Row, Row, Row, Row, Row, Row, Row, Row, Row, Row, Row, Row, Row)

    /// Whether block `counter` is one of the four.
    func holds(_ counter: UInt32) -> Bool { counter &- first < 4 }
  }

  /// The block function (RFC 8439 §2.3) for the blocks `counter` to `counter + 3`.
  func batch(startingAt counter: UInt32) -> Batch {
    let constants: (UInt32, UInt32, UInt32, UInt32) = (
      0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574
    )
    let input = (
      Row(repeating: constants.0), Row(repeating: constants.1), Row(repeating: constants.2),
      Row(repeating: constants.3), Row(repeating: key.0), Row(repeating: key.1),
      Row(repeating: key.2), Row(repeating: key.3), Row(repeating: key.4),
      Row(repeating: key.5), Row(repeating: key.6), Row(repeating: key.7),
      Row(counter, counter &+ 1, counter &+ 2, counter &+ 3), Row(repeating: nonce.0),
      Row(repeating: nonce.1), Row(repeating: nonce.2)
    )
    var (x0, x1, x2, x3, x4, x5, x6, x7) = (
      input.0, input.1, input.2, input.3, input.4, input.5, input.6, input.7
    )
    var (x8, x9, x10, x11, x12, x13, x14, x15) = (
      input.8, input.9, input.10, input.11, input.12, input.13, input.14, input.15
    )
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
    return Batch(
      first: counter,
      rows: (
        x0 &+ input.0, x1 &+ input.1, x2 &+ input.2, x3 &+ input.3, x4 &+ input.4,
        x5 &+ input.5, x6 &+ input.6, x7 &+ input.7, x8 &+ input.8, x9 &+ input.9,
        x10 &+ input.10, x11 &+ input.11, x12 &+ input.12, x13 &+ input.13, x14 &+ input.14,
        x15 &+ input.15
      ))
  }

  /// Writes the 64-byte keystream block for `counter` (the serialised block function output).
  /// - Parameter output: At least 64 writable bytes, any alignment.
  func keystreamBlock(counter: UInt32, into output: UnsafeMutableRawPointer) {
    var made = batch(startingAt: counter)
    Self.keystreamBlock(counter, of: &made, into: output)
  }

  /// Writes block `counter` of `batch`, which holds it, serialised.
  static func keystreamBlock(
    _ counter: UInt32, of batch: inout Batch, into output: UnsafeMutableRawPointer
  ) {
    let lane = Int(counter &- batch.first)
    withUnsafeBytes(of: &batch.rows) { rows in
      for word in 0..<16 {
        let value = rows.load(fromByteOffset: (word * 4 + lane) * 4, as: UInt32.self)
        output.storeBytes(of: value.littleEndian, toByteOffset: word * 4, as: UInt32.self)
      }
    }
  }

  /// XORs `count` bytes of `input` with the keystream starting at block `counter`, into `output`.
  ///
  /// Encryption and decryption are the same operation. `input` and `output` may be the same
  /// memory (in place), but must not otherwise overlap.
  /// - Parameter made: A batch already made, whose blocks are used where the message needs them
  ///   (the AEAD makes blocks 0 to 3 for its one-time key and the message's first three blocks).
  /// - Precondition: the message fits in the blocks left before the counter wraps.
  /// - Complexity: O(`count`).
  func xor(
    _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int,
    counter: UInt32, made: Batch? = nil
  ) {
    let blocks = (count + Self.blockByteCount - 1) / Self.blockByteCount
    precondition(
      UInt64(counter) + UInt64(blocks) <= UInt64(UInt32.max) + 1,
      "ChaCha20: message too long for a 32-bit block counter")
    guard count > 0 else { return }
    // Read in place (`&`): a batch is 256 bytes, which a copy per block would move around.
    var current = made ?? batch(startingAt: counter)
    var offset = 0
    var blockCounter = counter
    while offset < count {
      if !current.holds(blockCounter) { current = batch(startingAt: blockCounter) }
      let lane = Int(blockCounter &- current.first)
      let length = min(Self.blockByteCount, count - offset)
      withUnsafeBytes(of: &current.rows) { rows in
        // Whole words: the keystream word as little-endian bytes, XORed with the input's.
        let words = length / 4
        for word in 0..<words {
          let stream = rows.load(fromByteOffset: (word * 4 + lane) * 4, as: UInt32.self)
            .littleEndian
          let plain = input.loadUnaligned(fromByteOffset: offset + word * 4, as: UInt32.self)
          output.storeBytes(of: plain ^ stream, toByteOffset: offset + word * 4, as: UInt32.self)
        }
        guard words * 4 < length else { return }
        // The last bytes of a partial block: the low bytes of the next word.
        var stream = rows.load(fromByteOffset: (words * 4 + lane) * 4, as: UInt32.self)
        for index in words * 4..<length {
          let byte = input.load(fromByteOffset: offset + index, as: UInt8.self)
          output.storeBytes(
            of: byte ^ UInt8(truncatingIfNeeded: stream), toByteOffset: offset + index,
            as: UInt8.self)
          stream >>= 8
        }
      }
      offset += Self.blockByteCount
      blockCounter &+= 1
    }
  }
}
