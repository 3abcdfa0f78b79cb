/// Standard base64 (RFC 4648 §4) with padding: the text form of a ``SealedRecord`` in a payload.
///
/// One encoder and one decoder, both over bytes: the decoder reads a record straight from the
/// payload's bytes (no `String`, no `Data`), four characters to three bytes per step. It takes
/// only the canonical form the encoder writes: a length that is a multiple of four, characters of
/// the standard alphabet, one or two `=` only at the end, and zero bits in the last character's
/// unused part (so one byte string has exactly one text).
enum Base64 {
  /// The 64 characters, in value order.
  static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// Four tables of 256 words, one per position in a group of four characters: each byte's
  /// value in the alphabet already shifted to its place in the group's 24 bits, or the top bit
  /// for a byte outside the alphabet (`=` included). A group is the OR of four lookups.
  static let placedValues: [UInt32] = {
    var table = [UInt32](repeating: 0x8000_0000, count: 4 * 256)
    for place in 0..<4 {
      for (value, character) in alphabet.enumerated() {
        table[place * 256 + Int(character)] = UInt32(value) << (18 - 6 * place)
      }
    }
    return table
  }()

  /// The text of `bytes`, with padding.
  /// - Complexity: O(`bytes.count`).
  static func encode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    let count = bytes.count
    let textCount = (count + 2) / 3 * 4
    return alphabet.withUnsafeBufferPointer { symbols in
      [UInt8](unsafeUninitializedCapacity: textCount) { text, initialized in
        var input = 0
        var output = 0
        func symbol(_ value: UInt32) -> UInt8 { symbols[Int(value & 0x3F)] }
        while input + 3 <= count {
          let group =
            UInt32(bytes[input]) << 16 | UInt32(bytes[input + 1]) << 8 | UInt32(bytes[input + 2])
          text[output] = symbol(group >> 18)
          text[output + 1] = symbol(group >> 12)
          text[output + 2] = symbol(group >> 6)
          text[output + 3] = symbol(group)
          input += 3
          output += 4
        }
        let rest = count - input
        if rest > 0 {
          let second = rest == 2 ? UInt32(bytes[input + 1]) << 8 : 0
          let group = UInt32(bytes[input]) << 16 | second
          text[output] = symbol(group >> 18)
          text[output + 1] = symbol(group >> 12)
          text[output + 2] = rest == 2 ? symbol(group >> 6) : 0x3D
          text[output + 3] = 0x3D
        }
        initialized = textCount
      }
    }
  }

  /// The bytes whose text is `text`, or `nil` when `text` is not canonical standard base64 with
  /// padding (see the type's description).
  /// - Complexity: O(`text.count`).
  static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    let count = text.count
    guard count % 4 == 0 else { return nil }
    guard let base = text.baseAddress, count > 0 else { return [] }
    let padding = base[count - 1] != 0x3D ? 0 : base[count - 2] != 0x3D ? 1 : 2
    let byteCount = count / 4 * 3 - padding
    let wholeGroups = count / 4 - (padding > 0 ? 1 : 0)
    var invalid: UInt32 = 0
    // One byte of room past the end: each group is stored as a whole word.
    let bytes = placedValues.withUnsafeBufferPointer { table in
      [UInt8](unsafeUninitializedCapacity: byteCount + 1) { output, initialized in
        guard let target = UnsafeMutableRawPointer(output.baseAddress) else {
          invalid = 0x8000_0000
          return
        }
        func value(_ index: Int, _ place: Int) -> UInt32 {
          table[place &* 256 &+ Int(base[index])]
        }
        var input = 0
        var position = 0
        for _ in 0..<wholeGroups {
          let group =
            value(input, 0) | value(input + 1, 1) | value(input + 2, 2)
            | value(input + 3, 3)
          invalid |= group
          // The group's three bytes, high first, then one that the next group overwrites.
          target.storeBytes(
            of: (group << 8).bigEndian, toByteOffset: position, as: UInt32.self)
          input += 4
          position += 3
        }
        if padding == 1 {
          let group = value(input, 0) | value(input + 1, 1) | value(input + 2, 2)
          // The last character's two low bits carry nothing: canonical text has them zero.
          invalid |= group | (group & 0xFF == 0 ? 0 : 0x8000_0000)
          output[position] = UInt8(truncatingIfNeeded: group >> 16)
          output[position + 1] = UInt8(truncatingIfNeeded: group >> 8)
        } else if padding == 2 {
          let group = value(input, 0) | value(input + 1, 1)
          invalid |= group | (group & 0xFFFF == 0 ? 0 : 0x8000_0000)
          output[position] = UInt8(truncatingIfNeeded: group >> 16)
        }
        initialized = byteCount
      }
    }
    return invalid & 0x8000_0000 == 0 ? bytes : nil
  }
}
