// Test vectors of RFC 8439, "ChaCha20 and Poly1305 for IETF Protocols" (June 2018).
//
// Generated, not typed: every value below was extracted by a script from the RFC's text
// (https://www.rfc-editor.org/rfc/rfc8439.txt; the copy used was rfc8439.txt of
// github.com/floodyberry/poly1305-donna at commit 87b016703b1954b30cacc429c63b96326de1809b),
// section by section, from the hex dumps, and checked for the lengths the RFC states.
// Byte strings are lowercase hex; "+" only wraps long lines.

import Testing

@testable import Events

/// The vectors of RFC 8439 §2 and Appendix A.
enum RFC8439 {
  /// §2.1.1: the quarter round on (a, b, c, d).
  static let quarterRoundInput: [UInt32] = [0x1111_1111, 0x0102_0304, 0x9b8d_6f43, 0x0123_4567]
  static let quarterRoundOutput: [UInt32] = [0xea2a_92f4, 0xcb1c_f8ce, 0x4581_472e, 0x5881_c4bb]
  /// §2.2.1: QUARTERROUND(2, 7, 8, 13) on a 16-word state.
  static let stateBefore: [UInt32] = [
    0x8795_31e0, 0xc5ec_f37d, 0x5164_61b1, 0xc9a6_2f8a,
    0x44c2_0ef3, 0x3390_af7f, 0xd9fc_690b, 0x2a5f_714c,
    0x5337_2767, 0xb00a_5631, 0x974c_541a, 0x359e_9963,
    0x5c97_1061, 0x3d63_1689, 0x2098_d9d6, 0x91db_d320,
  ]
  static let stateAfter: [UInt32] = [
    0x8795_31e0, 0xc5ec_f37d, 0xbdb8_86dc, 0xc9a6_2f8a,
    0x44c2_0ef3, 0x3390_af7f, 0xd9fc_690b, 0xcfac_afd2,
    0xe46b_ea80, 0xb00a_5631, 0x974c_541a, 0x359e_9963,
    0x5c97_1061, 0xccc0_7c79, 0x2098_d9d6, 0x91db_d320,
  ]

  /// A ChaCha20 keystream block: key, nonce, block counter, the 64 serialised bytes.
  struct Block: Sendable, CustomTestStringConvertible {
    var name: String
    var key: String
    var nonce: String
    var counter: UInt32
    var keystream: String
    var testDescription: String { name }
  }

  /// §2.3.2 and Appendix A.1 #1–#5.
  static let blocks: [Block] = [
    Block(
      name: "§2.3.2", key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
      nonce: "000000090000004a00000000", counter: 1,
      keystream: "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        + "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"),
    Block(
      name: "A.1 #1", key: "0000000000000000000000000000000000000000000000000000000000000000",
      nonce: "000000000000000000000000", counter: 0,
      keystream: "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
        + "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"),
    Block(
      name: "A.1 #2", key: "0000000000000000000000000000000000000000000000000000000000000000",
      nonce: "000000000000000000000000", counter: 1,
      keystream: "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
        + "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"),
    Block(
      name: "A.1 #3", key: "0000000000000000000000000000000000000000000000000000000000000001",
      nonce: "000000000000000000000000", counter: 1,
      keystream: "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
        + "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0"),
    Block(
      name: "A.1 #4", key: "00ff000000000000000000000000000000000000000000000000000000000000",
      nonce: "000000000000000000000000", counter: 2,
      keystream: "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
        + "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096"),
    Block(
      name: "A.1 #5", key: "0000000000000000000000000000000000000000000000000000000000000000",
      nonce: "000000000000000000000002", counter: 0,
      keystream: "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
        + "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d"),
  ]

  /// A ChaCha20 encryption: key, nonce, initial counter, plaintext, ciphertext.
  struct Encryption: Sendable, CustomTestStringConvertible {
    var name: String
    var key: String
    var nonce: String
    var counter: UInt32
    var plaintext: String
    var ciphertext: String
    var testDescription: String { name }
  }

  /// §2.4.2 and Appendix A.2 #1–#3.
  static let encryptions: [Encryption] = [
    Encryption(
      name: "§2.4.2", key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
      nonce: "000000000000004a00000000", counter: 1,
      plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
        + "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
        + "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
        + "637265656e20776f756c642062652069742e",
      ciphertext: "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
        + "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
        + "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
        + "5af90bbf74a35be6b40b8eedf2785e42874d"),
    Encryption(
      name: "A.2 #1", key: "0000000000000000000000000000000000000000000000000000000000000000",
      nonce: "000000000000000000000000", counter: 0,
      plaintext: "0000000000000000000000000000000000000000000000000000000000000000"
        + "0000000000000000000000000000000000000000000000000000000000000000",
      ciphertext: "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
        + "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"),
    Encryption(
      name: "A.2 #2", key: "0000000000000000000000000000000000000000000000000000000000000001",
      nonce: "000000000000000000000002", counter: 1,
      plaintext: "416e79207375626d697373696f6e20746f20746865204945544620696e74656e"
        + "6465642062792074686520436f6e7472696275746f7220666f72207075626c69"
        + "636174696f6e20617320616c6c206f722070617274206f6620616e2049455446"
        + "20496e7465726e65742d4472616674206f722052464320616e6420616e792073"
        + "746174656d656e74206d6164652077697468696e2074686520636f6e74657874"
        + "206f6620616e204945544620616374697669747920697320636f6e7369646572"
        + "656420616e20224945544620436f6e747269627574696f6e222e205375636820"
        + "73746174656d656e747320696e636c756465206f72616c2073746174656d656e"
        + "747320696e20494554462073657373696f6e732c2061732077656c6c20617320"
        + "7772697474656e20616e6420656c656374726f6e696320636f6d6d756e696361"
        + "74696f6e73206d61646520617420616e792074696d65206f7220706c6163652c"
        + "207768696368206172652061646472657373656420746f",
      ciphertext: "a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec"
        + "2a97948bd3722915c8f3d337f7d370050e9e96d647b7c39f56e031ca5eb6250d"
        + "4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e527950"
        + "42bdfa7773d8a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85a"
        + "d00f8449ed8f72d0d662ab052691ca66424bc86d2df80ea41f43abf937d3259d"
        + "c4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b"
        + "0871cdac638939e25e8a1e0ef9d5280fa8ca328b351c3c765989cbcf3daa8b6c"
        + "cc3aaf9f3979c92b3720fc88dc95ed84a1be059c6499b9fda236e7e818b04b0b"
        + "c39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f"
        + "5869ca52c5b83fa36ff216b9c1d30062bebcfd2dc5bce0911934fda79a86f6e6"
        + "98ced759c3ff9b6477338f3da4f9cd8514ea9982ccafb341b2384dd902f3d1ab"
        + "7ac61dd29c6f21ba5b862f3730e37cfdc4fd806c22f221"),
    Encryption(
      name: "A.2 #3", key: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
      nonce: "000000000000000000000002", counter: 42,
      plaintext: "2754776173206272696c6c69672c20616e642074686520736c6974687920746f"
        + "7665730a446964206779726520616e642067696d626c6520696e207468652077"
        + "6162653a0a416c6c206d696d737920776572652074686520626f726f676f7665"
        + "732c0a416e6420746865206d6f6d65207261746873206f757467726162652e",
      ciphertext: "62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf"
        + "166d3df2d721caf9b21e5fb14c616871fd84c54f9d65b283196c7fe4f60553eb"
        + "f39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f77"
        + "04c6a8d1bcd1bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1"),
  ]

  /// A Poly1305 tag: one-time key (r then s), message, tag.
  struct MAC: Sendable, CustomTestStringConvertible {
    var name: String
    var key: String
    var message: String
    var tag: String
    var testDescription: String { name }
  }

  /// §2.5.2 and Appendix A.3 #1–#11.
  static let macs: [MAC] = [
    MAC(
      name: "§2.5.2", key: "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
      message: "43727970746f6772617068696320466f72756d2052657365617263682047726f"
        + "7570",
      tag: "a8061dc1305136c6c22b8baf0c0127a9"),
    MAC(
      name: "A.3 #1", key: "0000000000000000000000000000000000000000000000000000000000000000",
      message: "0000000000000000000000000000000000000000000000000000000000000000"
        + "0000000000000000000000000000000000000000000000000000000000000000",
      tag: "00000000000000000000000000000000"),
    MAC(
      name: "A.3 #2", key: "0000000000000000000000000000000036e5f6b5c5e06070f0efca96227a863e",
      message: "416e79207375626d697373696f6e20746f20746865204945544620696e74656e"
        + "6465642062792074686520436f6e7472696275746f7220666f72207075626c69"
        + "636174696f6e20617320616c6c206f722070617274206f6620616e2049455446"
        + "20496e7465726e65742d4472616674206f722052464320616e6420616e792073"
        + "746174656d656e74206d6164652077697468696e2074686520636f6e74657874"
        + "206f6620616e204945544620616374697669747920697320636f6e7369646572"
        + "656420616e20224945544620436f6e747269627574696f6e222e205375636820"
        + "73746174656d656e747320696e636c756465206f72616c2073746174656d656e"
        + "747320696e20494554462073657373696f6e732c2061732077656c6c20617320"
        + "7772697474656e20616e6420656c656374726f6e696320636f6d6d756e696361"
        + "74696f6e73206d61646520617420616e792074696d65206f7220706c6163652c"
        + "207768696368206172652061646472657373656420746f",
      tag: "36e5f6b5c5e06070f0efca96227a863e"),
    MAC(
      name: "A.3 #3", key: "36e5f6b5c5e06070f0efca96227a863e00000000000000000000000000000000",
      message: "416e79207375626d697373696f6e20746f20746865204945544620696e74656e"
        + "6465642062792074686520436f6e7472696275746f7220666f72207075626c69"
        + "636174696f6e20617320616c6c206f722070617274206f6620616e2049455446"
        + "20496e7465726e65742d4472616674206f722052464320616e6420616e792073"
        + "746174656d656e74206d6164652077697468696e2074686520636f6e74657874"
        + "206f6620616e204945544620616374697669747920697320636f6e7369646572"
        + "656420616e20224945544620436f6e747269627574696f6e222e205375636820"
        + "73746174656d656e747320696e636c756465206f72616c2073746174656d656e"
        + "747320696e20494554462073657373696f6e732c2061732077656c6c20617320"
        + "7772697474656e20616e6420656c656374726f6e696320636f6d6d756e696361"
        + "74696f6e73206d61646520617420616e792074696d65206f7220706c6163652c"
        + "207768696368206172652061646472657373656420746f",
      tag: "f3477e7cd95417af89a6b8794c310cf0"),
    MAC(
      name: "A.3 #4", key: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
      message: "2754776173206272696c6c69672c20616e642074686520736c6974687920746f"
        + "7665730a446964206779726520616e642067696d626c6520696e207468652077"
        + "6162653a0a416c6c206d696d737920776572652074686520626f726f676f7665"
        + "732c0a416e6420746865206d6f6d65207261746873206f757467726162652e",
      tag: "4541669a7eaaee61e708dc7cbcc5eb62"),
    MAC(
      name: "A.3 #5", key: "0200000000000000000000000000000000000000000000000000000000000000",
      message: "ffffffffffffffffffffffffffffffff",
      tag: "03000000000000000000000000000000"),
    MAC(
      name: "A.3 #6", key: "02000000000000000000000000000000ffffffffffffffffffffffffffffffff",
      message: "02000000000000000000000000000000",
      tag: "03000000000000000000000000000000"),
    MAC(
      name: "A.3 #7", key: "0100000000000000000000000000000000000000000000000000000000000000",
      message: "fffffffffffffffffffffffffffffffff0ffffffffffffffffffffffffffffff"
        + "11000000000000000000000000000000",
      tag: "05000000000000000000000000000000"),
    MAC(
      name: "A.3 #8", key: "0100000000000000000000000000000000000000000000000000000000000000",
      message: "fffffffffffffffffffffffffffffffffbfefefefefefefefefefefefefefefe"
        + "01010101010101010101010101010101",
      tag: "00000000000000000000000000000000"),
    MAC(
      name: "A.3 #9", key: "0200000000000000000000000000000000000000000000000000000000000000",
      message: "fdffffffffffffffffffffffffffffff",
      tag: "faffffffffffffffffffffffffffffff"),
    MAC(
      name: "A.3 #10", key: "0100000000000000040000000000000000000000000000000000000000000000",
      message: "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
        + "0000000000000000000000000000000001000000000000000000000000000000",
      tag: "14000000000000005500000000000000"),
    MAC(
      name: "A.3 #11", key: "0100000000000000040000000000000000000000000000000000000000000000",
      message: "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
        + "00000000000000000000000000000000",
      tag: "13000000000000000000000000000000"),
  ]

  /// A Poly1305 one-time key made with ChaCha20 (block 0, first 32 bytes).
  struct KeyGeneration: Sendable, CustomTestStringConvertible {
    var name: String
    var key: String
    var nonce: String
    var oneTimeKey: String
    var testDescription: String { name }
  }

  /// §2.6.2, Appendix A.4 #1–#3, and the one-time keys shown in §2.8.2 and A.5.
  static let keyGenerations: [KeyGeneration] = [
    KeyGeneration(
      name: "§2.6.2", key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
      nonce: "000000000001020304050607",
      oneTimeKey: "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646"),
    KeyGeneration(
      name: "A.4 #1", key: "0000000000000000000000000000000000000000000000000000000000000000",
      nonce: "000000000000000000000000",
      oneTimeKey: "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"),
    KeyGeneration(
      name: "A.4 #2", key: "0000000000000000000000000000000000000000000000000000000000000001",
      nonce: "000000000000000000000002",
      oneTimeKey: "ecfa254f845f647473d3cb140da9e87606cb33066c447b87bc2666dde3fbb739"),
    KeyGeneration(
      name: "A.4 #3", key: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
      nonce: "000000000000000000000002",
      oneTimeKey: "965e3bc6f9ec7ed9560808f4d229f94b137ff275ca9b3fcbdd59deaad23310ae"),
    KeyGeneration(
      name: "§2.8.2", key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
      nonce: "070000004041424344454647",
      oneTimeKey: "7bac2b252db447af09b67a55a4e955840ae1d6731075d9eb2a9375783ed553ff"),
    KeyGeneration(
      name: "A.5", key: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
      nonce: "000000000102030405060708",
      oneTimeKey: "bdf04aa95ce4de8995b14bb6a18fecaf26478f50c054f563dbc0a21e261572aa"),
  ]

  /// An AEAD_CHACHA20_POLY1305 message: key, nonce, associated data, plaintext, ciphertext, tag.
  struct AEAD: Sendable, CustomTestStringConvertible {
    var name: String
    var key: String
    var nonce: String
    var associatedData: String
    var plaintext: String
    var ciphertext: String
    var tag: String
    var testDescription: String { name }
  }

  /// §2.8.2 (the nonce is the 32-bit fixed-common part 07000000, then the IV) and Appendix A.5.
  static let aeads: [AEAD] = [
    AEAD(
      name: "§2.8.2", key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
      nonce: "070000004041424344454647", associatedData: "50515253c0c1c2c3c4c5c6c7",
      plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
        + "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
        + "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
        + "637265656e20776f756c642062652069742e",
      ciphertext: "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
        + "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
        + "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
        + "3ff4def08e4b7a9de576d26586cec64b6116",
      tag: "1ae10b594f09e26a7e902ecbd0600691"),
    AEAD(
      name: "A.5", key: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
      nonce: "000000000102030405060708", associatedData: "f33388860000000000004e91",
      plaintext: "496e7465726e65742d4472616674732061726520647261667420646f63756d65"
        + "6e74732076616c696420666f722061206d6178696d756d206f6620736978206d"
        + "6f6e74687320616e64206d617920626520757064617465642c207265706c6163"
        + "65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65"
        + "6e747320617420616e792074696d652e20497420697320696e617070726f7072"
        + "6961746520746f2075736520496e7465726e65742d4472616674732061732072"
        + "65666572656e6365206d6174657269616c206f7220746f206369746520746865"
        + "6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67"
        + "726573732e2fe2809d",
      ciphertext: "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
        + "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
        + "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
        + "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
        + "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
        + "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
        + "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
        + "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
        + "a6ad5cb4022b02709b",
      tag: "eead9d67890cbb22392336fea1851f38"),
  ]
}

extension Array where Element == UInt8 {
  /// Bytes from lowercase or uppercase hex, two digits a byte (the vectors above).
  init(hex: String) {
    var bytes: [UInt8] = []
    var high: UInt8?
    for character in hex.utf8 {
      let nibble: UInt8
      switch character {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
      default: preconditionFailure("not a hex digit in a test vector: \(character)")
      }
      if let pending = high {
        bytes.append(pending << 4 | nibble)
        high = nil
      } else {
        high = nibble
      }
    }
    precondition(high == nil, "odd number of hex digits in a test vector")
    self = bytes
  }

  /// Lowercase hex, for failure messages.
  var hex: String {
    map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }
}

extension ChaCha20 {
  /// A cipher from hex key and nonce (test vectors).
  init(hexKey: String, hexNonce: String) {
    let key = [UInt8](hex: hexKey)
    let nonce = [UInt8](hex: hexNonce)
    self = key.withUnsafeBytes { keyBytes in
      nonce.withUnsafeBytes { ChaCha20(key: keyBytes, nonce: $0) }
    }
  }

  /// `bytes` XORed with the keystream from block `counter`.
  func xor(_ bytes: [UInt8], counter: UInt32) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: bytes.count)
    bytes.withUnsafeBytes { input in
      output.withUnsafeMutableBytes { target in
        if let source = input.baseAddress, let destination = target.baseAddress {
          xor(source, into: destination, count: bytes.count, counter: counter)
        }
      }
    }
    return output
  }
}

/// The 16 bytes of a Poly1305 tag, in order.
func tagBytes(_ tag: (UInt64, UInt64)) -> [UInt8] {
  var words = (tag.0.littleEndian, tag.1.littleEndian)
  return withUnsafeBytes(of: &words) { Array($0) }
}
