import Foundation
import Testing

@testable import Events

/// The project's base64 against RFC 4648's vectors and against Foundation, and what it refuses.
@Suite struct Base64Tests {
  func decode(_ text: String) -> [UInt8]? {
    var text = text
    return text.withUTF8 { Base64.decode($0) }
  }

  func encode(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.withUnsafeBytes { Base64.encode($0) }, as: UTF8.self)
  }

  /// RFC 4648 §10.
  @Test func rfc4648Vectors() {
    let vectors = [
      ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
      ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]
    for (plain, text) in vectors {
      #expect(encode(Array(plain.utf8)) == text)
      #expect(decode(text) == Array(plain.utf8))
    }
  }

  @Test func everyLengthRoundTripsAndMatchesFoundation() {
    var generator = SplitMix64(seed: TestSeed.make("base64 lengths"))
    for length in 0...300 {
      let bytes = generator.bytes(count: length)
      let text = encode(bytes)
      #expect(text == Data(bytes).base64EncodedString(), "length \(length)")
      #expect(decode(text) == bytes, "length \(length)")
    }
  }

  @Test func everyByteValueInEveryPlace() {
    // Each of the 256 byte values at each of the three places of a group.
    for place in 0..<3 {
      for value in 0...255 {
        var bytes: [UInt8] = [0x5A, 0xA5, 0x3C]
        bytes[place] = UInt8(value)
        #expect(decode(encode(bytes)) == bytes)
      }
    }
  }

  @Test func refusesWhatIsNotCanonicalStandardBase64() {
    let refused = [
      "A", "AB", "ABC", "ABCDE",  // not a multiple of four
      "AB=A", "A===", "====", "=AAA", "QQ==QQ==",  // padding not at the end
      "ABC$", "AB C", "AB\nC", "AB-_", "QUJD\u{0}AAA", "QUJDé=",  // outside the alphabet
      "QR==", "QUF=",  // unused bits set: "QQ==" and "QUE=" are the canonical texts
    ]
    for text in refused {
      #expect(decode(text) == nil, "\(text.debugDescription)")
    }
    // Every byte outside the alphabet, in each place of a group (`=` is tried above).
    let alphabet = Set(Base64.alphabet)
    for byte in 0...255 where !alphabet.contains(UInt8(byte)) && byte != 0x3D {
      for place in 0..<4 {
        var text = Array("QUJD".utf8)
        text[place] = UInt8(byte)
        let decoded = text.withUnsafeBufferPointer { Base64.decode($0) }
        #expect(decoded == nil, "byte \(byte) at \(place)")
      }
    }
  }
}
