import Testing

@testable import Events

@Suite struct SHA512Tests {
  // FIPS 180-4 examples (NIST CSRC "SHA512.pdf": one block, two blocks, empty) and the
  // lengths either side of the padding boundary (111 bytes fit one block with the length, 112
  // do not), checked against Python's hashlib.
  @Test(arguments: [
    (
      "abc",
      "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    ),
    (
      "",
      "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
        + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
        + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
    ),
    (
      String(repeating: "a", count: 111),
      "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef86818196921760"
        + "b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2"
    ),
    (
      String(repeating: "a", count: 112),
      "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32"
        + "bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca"
    ),
    (
      String(repeating: "a", count: 128),
      "b73d1929aa615934e61a871596b3f3b33359f42b8175602e89f7e06e5f658a24"
        + "3667807ed300314b95cacdd579f3e33abdfbe351909519a846d465c59582f321"
    ),
  ])
  func hashMatchesPublishedVector(message: String, expectedHex: String) {
    #expect(SHA256.hex(SHA512.hash(message.utf8)) == expectedHex)
  }

  @Test func oneMillionLetterAMatchesPublishedVectorInAnySplit() {
    let expected =
      "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
      + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"
    #expect(SHA256.hex(SHA512.hash([UInt8](repeating: 0x61, count: 1_000_000))) == expected)
    var hasher = SHA512()
    let piece = [UInt8](repeating: 0x61, count: 1000)
    for _ in 0..<1000 { hasher.update(piece) }
    #expect(SHA256.hex(hasher.finalize()) == expected)
  }
}
