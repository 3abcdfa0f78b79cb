import Testing

@testable import Events

@Suite struct Ed25519Tests {
  /// RFC 8032 §7.1: TEST 1, 2, 3, 1024 and SHA(abc) (seed, public key, message, signature).
  static let vectors:
    [(
      name: String, seed: String, publicKey: String, message: String,
      signature: String
    )] = [
      (
        "TEST 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
          + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
      ),
      (
        "TEST 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
          + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
      ),
      (
        "TEST 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
          + "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
      ),
      (
        "TEST 1024", "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
        "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
        RFC8032Message1024.hex,
        "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350"
          + "aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"
      ),
      (
        "TEST SHA(abc)", "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
        "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
          + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
          + "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"
      ),
    ]

  static func bytes(_ hex: String) throws -> [UInt8] {
    try #require(SHA256.bytes(fromHex: hex))
  }

  @Test(arguments: 0..<5)
  func rfc8032VectorSignsAndVerifies(index: Int) throws {
    let vector = Self.vectors[index]
    let message = try Self.bytes(vector.message)
    let key = try Ed25519.PrivateKey(seed: Self.bytes(vector.seed))
    #expect(SHA256.hex(key.publicKey.bytes) == vector.publicKey, "\(vector.name)")
    let signature = key.signature(for: message)
    #expect(SHA256.hex(signature) == vector.signature, "\(vector.name)")
    let publicKey = try Ed25519.PublicKey(bytes: Self.bytes(vector.publicKey))
    #expect(publicKey.isValidSignature(signature, for: message))
    #expect(!publicKey.isValidSignature(signature, for: message + [0]))
  }

  @Test func everyFlippedBitOfASignatureIsRefused() throws {
    let vector = Self.vectors[2]
    let message = try Self.bytes(vector.message)
    let publicKey = try Ed25519.PublicKey(bytes: Self.bytes(vector.publicKey))
    let signature = try Self.bytes(vector.signature)
    for bit in stride(from: 0, to: 512, by: 7) {
      var flipped = signature
      flipped[bit / 8] ^= 1 << UInt8(bit % 8)
      #expect(!publicKey.isValidSignature(flipped, for: message), "bit \(bit)")
    }
    #expect(!publicKey.isValidSignature(Array(signature.dropLast()), for: message))
  }

  /// RFC 8032 §5.1.7: S must be below L; S + L is the same scalar, so accepting it would make
  /// every signature malleable.
  @Test func nonCanonicalSIsRefused() throws {
    let vector = Self.vectors[0]
    let publicKey = try Ed25519.PublicKey(bytes: Self.bytes(vector.publicKey))
    let signature = try Self.bytes(vector.signature)
    var s = Array(signature[32...])
    var carry = 0
    for index in 0..<32 {
      let sum = Int(s[index]) + Int(Ed25519.Scalar.order[index]) + carry
      s[index] = UInt8(sum & 0xFF)
      carry = sum >> 8
    }
    #expect(carry == 0)
    #expect(!publicKey.isValidSignature(Array(signature[..<32]) + s, for: []))
    #expect(!publicKey.isValidSignature(Array(signature[..<32]) + Ed25519.Scalar.order, for: []))
  }

  /// The identity (y = 1) and the point of order 2 (y = -1) are small-order public keys: a
  /// signature with R = identity and S = 0 would match any message under the identity.
  @Test func smallOrderAndInvalidPublicKeysAreRefused() throws {
    var identity = [UInt8](repeating: 0, count: 32)
    identity[0] = 1
    #expect(throws: CryptoError.self) { try Ed25519.PublicKey(bytes: identity) }
    let orderTwo = try Self.bytes(
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
    #expect(throws: CryptoError.self) { try Ed25519.PublicKey(bytes: orderTwo) }
    // y = p + 1 is the identity's y, non-canonically encoded.
    let nonCanonical = try Self.bytes(
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
    #expect(throws: CryptoError.self) { try Ed25519.PublicKey(bytes: nonCanonical) }
    // y = 2 has no x on the curve.
    var notOnCurve = [UInt8](repeating: 0, count: 32)
    notOnCurve[0] = 2
    #expect(throws: CryptoError.self) { try Ed25519.PublicKey(bytes: notOnCurve) }
    #expect(throws: CryptoError.self) { try Ed25519.PublicKey(bytes: [1, 2, 3]) }

    // A forged "signature" under the identity key is refused even by a key built past the
    // check: R = identity is refused as small order.
    let forged = identity + [UInt8](repeating: 0, count: 32)
    let key = Ed25519.PublicKey(trustedBytes: identity)
    #expect(!key.isValidSignature(forged, for: Array("anything".utf8)))
  }

  @Test func generatedKeysSignAndVerifyAndDiffer() throws {
    let first = try Ed25519.PrivateKey.generate()
    let second = try Ed25519.PrivateKey.generate()
    #expect(first.seed != second.seed)
    let message = Array("tree head".utf8)
    #expect(first.publicKey.isValidSignature(first.signature(for: message), for: message))
    #expect(!second.publicKey.isValidSignature(first.signature(for: message), for: message))
  }

  @Test func seedOfTheWrongLengthIsRefused() {
    #expect(
      throws: CryptoError.invalidLength(what: "Ed25519 seed", expected: "32 bytes", found: 31)
    ) {
      try Ed25519.PrivateKey(seed: [UInt8](repeating: 0, count: 31))
    }
  }
}
