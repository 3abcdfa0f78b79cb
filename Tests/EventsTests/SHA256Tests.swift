import Foundation
import Testing

@testable import Events

@Suite struct SHA256Tests {
  // FIPS 180-4 examples (NIST CSRC "SHA256.pdf" and the SHAVS short messages).
  @Test(arguments: [
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
    (
      "The quick brown fox jumps over the lazy dog",
      "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"
    ),
    ("😀 Grüße, 世界", "02bf8727ff154f186072f1d5332809a91e0a474349fbbc9c9ac1f21238ad0217"),
  ])
  func hashMatchesPublishedVector(message: String, expectedHex: String) {
    #expect(SHA256.hex(SHA256.hash(message.utf8)) == expectedHex)
    #expect(SHA256.hex(SHA256.hash(Array(message.utf8))) == expectedHex)
  }

  @Test func oneMillionLetterAMatchesPublishedVector() {
    let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    let message = [UInt8](repeating: 0x61, count: 1_000_000)
    #expect(SHA256.hex(SHA256.hash(message)) == expected)

    // As NIST suggests: the same message fed in a thousand pieces.
    var hasher = SHA256()
    let piece = [UInt8](repeating: 0x61, count: 1000)
    for _ in 0..<1000 { hasher.update(piece) }
    #expect(SHA256.hex(hasher.finalize()) == expected)

    // And through the path for collections without contiguous storage.
    #expect(SHA256.hex(SHA256.hash(repeatElement(0x61, count: 1_000_000))) == expected)
  }

  // Lengths where the padding's 0x80 and 64-bit length just fit, just don't, or spill into a
  // second block (digests from Python's hashlib).
  @Test(arguments: [
    (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
    (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
    (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
    (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
  ])
  func paddingBoundaryLengthHashesCorrectlyAtEverySplit(length: Int, expectedHex: String) {
    let message = [UInt8](repeating: 0x61, count: length)
    #expect(SHA256.hex(SHA256.hash(message)) == expectedHex)
    for split in 0...length {
      var hasher = SHA256()
      hasher.update(message[..<split])
      hasher.update(message[split...])
      #expect(SHA256.hex(hasher.finalize()) == expectedHex, "split at \(split)")
    }
  }

  @Test func everyLengthUpTo200SplitAtRandomPointsMatchesOneShot() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for length in 0...200 {
      let message = random.bytes(count: length)
      let oneShot = SHA256.hash(message)
      #expect(oneShot == ReferenceSHA256.hash(message), "length \(length), seed \(seed)")

      var cuts = (0..<Int.random(in: 1...6, using: &random)).map { _ in
        Int.random(in: 0...length, using: &random)
      }
      cuts.append(contentsOf: [0, length])
      cuts.sort()
      var hasher = SHA256()
      for (from, to) in zip(cuts, cuts.dropFirst()) {
        message.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[from..<to])) }
      }
      #expect(hasher.finalize() == oneShot, "length \(length), cuts \(cuts), seed \(seed)")

      var byteByByte = SHA256()
      for byte in message { byteByByte.update(CollectionOfOne(byte)) }
      #expect(byteByByte.finalize() == oneShot, "length \(length), seed \(seed)")
    }
  }

  @Test func randomMessagesMatchReferenceImplementation() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    let rounds = slowTestsEnabled ? 2000 : 50
    for _ in 0..<rounds {
      let length = Int.random(in: 0...(slowTestsEnabled ? 20_000 : 2000), using: &random)
      let message = random.bytes(count: length)
      #expect(
        SHA256.hash(message) == ReferenceSHA256.hash(message), "length \(length), seed \(seed)")
    }
  }

  @Test func nonContiguousCollectionHashesLikeItsArray() {
    // 3000 bytes cross the 1024-byte staging chunks of the non-contiguous path more than once.
    let bytes = (0..<3000).lazy.map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let array = Array(bytes)
    #expect(SHA256.hash(bytes) == SHA256.hash(array))
    #expect(SHA256.hash(bytes) == ReferenceSHA256.hash(array))
  }

  @Test func finalizeLeavesTheHasherReadyForMoreInput() {
    var hasher = SHA256()
    hasher.update("ab".utf8)
    let copy = hasher
    #expect(
      SHA256.hex(hasher.finalize())
        == "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603")
    hasher.update("c".utf8)
    #expect(
      SHA256.hex(hasher.finalize())
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    // The copy taken before "c" is independent of the original.
    #expect(
      SHA256.hex(copy.finalize())
        == "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603")
  }

  @Test func emptyUpdatesChangeNothing() {
    var hasher = SHA256()
    hasher.update([UInt8]())
    hasher.update(UnsafeRawBufferPointer(start: nil, count: 0))
    hasher.update("abc".utf8)
    hasher.update("".utf8)
    #expect(
      SHA256.hex(hasher.finalize())
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test func digestIsThirtyTwoBytes() {
    #expect(SHA256.hash([UInt8]()).count == 32)
    #expect(SHA256.digestByteCount == 32)
  }

  @Test func hexRendersLowercaseTwoDigitsPerByte() {
    #expect(SHA256.hex([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
    #expect(SHA256.hex([]) == "")
  }

  @Test(arguments: [
    ("000fa0ff", [0x00, 0x0F, 0xA0, 0xFF] as [UInt8]),
    ("000FA0FF", [0x00, 0x0F, 0xA0, 0xFF]),
    ("", []),
  ])
  func hexParsesEitherCase(text: String, expected: [UInt8]) {
    #expect(SHA256.bytes(fromHex: text) == expected)
  }

  @Test(arguments: ["0", "abc", "0g", "g0", " 00", "00 ", "0x00", "éé", "+1"])
  func hexRejectsOddLengthsAndNonHexCharacters(text: String) {
    #expect(SHA256.bytes(fromHex: text) == nil)
  }

  @Test func hexRoundTripsRandomDigests() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for _ in 0..<100 {
      let digest = SHA256.hash(random.bytes(count: 16))
      #expect(SHA256.bytes(fromHex: SHA256.hex(digest)) == digest, "seed \(seed)")
      #expect(SHA256.bytes(fromHex: SHA256.hex(digest).uppercased()) == digest, "seed \(seed)")
    }
  }
}

@Suite struct SHA256MidstateTests {
  @Test func resumingFromAMidstateGivesTheSameDigest() throws {
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x5348_4132))
    let message = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    for split in [0, 1, 55, 63, 64, 65, 500, 999, 1000] {
      var first = SHA256()
      first.update(message[..<split])
      var resumed = try #require(SHA256(midstate: first.midstate), "split \(split)")
      resumed.update(message[split...])
      #expect(resumed.finalize() == SHA256.hash(message), "split \(split)")
    }
  }

  @Test func oneStateHasOneMidstateHoweverItsInputWasSplit() {
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x5348_4133))
    let message = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
    var whole = SHA256()
    whole.update(message)
    for split in [1, 63, 64, 100, 129, 299] {
      // Bytes once pending in the partial block, then compressed, must not show.
      var pieces = SHA256()
      pieces.update(message[..<split])
      pieces.update(message[split...])
      #expect(pieces.midstate == whole.midstate, "split \(split)")
    }
    let bytes = whole.midstate
    let pendingCount = 300 % 64
    #expect(bytes[(32 + pendingCount)..<96].allSatisfy { $0 == 0 })
  }

  @Test func aDamagedMidstateIsRefused() {
    var hasher = SHA256()
    hasher.update(Array("abc".utf8))
    var bytes = hasher.midstate
    #expect(bytes.count == SHA256.midstateByteCount)
    #expect(SHA256(midstate: Array(bytes.dropLast())) == nil)
    bytes[96] = 70
    #expect(SHA256(midstate: bytes) == nil)
  }
}

@Suite struct SHA256ImplementationTests {
  /// The implementations this CPU can run: always the portable code, and its instructions.
  static let runnable: [SHA256.Implementation] =
    SHA256.implementation == .portable ? [.portable] : [.portable, SHA256.implementation]

  static func hash(_ message: [UInt8], _ implementation: SHA256.Implementation) -> [UInt8] {
    var hasher = SHA256(implementation: implementation)
    hasher.update(message)
    return hasher.finalize()
  }

  @Test func reportsTheImplementationThisCPUSupports() {
    print("SHA-256 implementation on this machine: \(SHA256.implementation)")
    #if arch(x86_64)
      #expect(SHA256.implementation == .x86SHA || SHA256.implementation == .portable)
    #elseif arch(arm64)
      #expect(SHA256.implementation == .arm64SHA2 || SHA256.implementation == .portable)
    #else
      #expect(SHA256.implementation == .portable)
    #endif
    // Every arm64 CPU Swift runs on has SHA2; on x86-64 the SHA extensions came with Goldmont,
    // Ice Lake and Zen, so older CPUs rightly run the portable code. Where /proc/cpuinfo says
    // the CPU has them, detection must find them.
    #if os(Linux) && arch(x86_64)
      if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
        info.contains(" sha_ni"), info.contains(" sse4_1")
      {
        #expect(SHA256.implementation == .x86SHA)
      }
    #endif
  }

  // FIPS 180-4's examples (NIST CSRC "SHA256.pdf"): one block, two blocks (448 bits), the
  // 896-bit message, and the empty one.
  @Test(
    arguments: runnable,
    [
      ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
      ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
      (
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      ),
      (
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
      ),
    ])
  func everyImplementationMatchesFIPSVector(
    implementation: SHA256.Implementation, vector: (message: String, expectedHex: String)
  ) {
    #expect(SHA256.hex(Self.hash(Array(vector.message.utf8), implementation)) == vector.expectedHex)
  }

  @Test(arguments: runnable)
  func everyImplementationMatchesOneMillionLetterA(implementation: SHA256.Implementation) {
    let message = [UInt8](repeating: 0x61, count: 1_000_000)
    #expect(
      SHA256.hex(Self.hash(message, implementation))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func instructionsAndPortableCodeAgreeForEveryLengthUpTo1000AtRandomSplits() throws {
    try #require(SHA256.implementation != .portable, "no SHA-256 instructions on this CPU")
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    // One random buffer with 15 bytes of slack, so each length is also tried off alignment.
    let bytes = random.bytes(count: 1000 + 15)
    var mismatches: [String] = []
    bytes.withUnsafeBytes { whole in
      for length in 0...1000 {
        let offset = length % 16
        let message = UnsafeRawBufferPointer(rebasing: whole[offset..<offset + length])
        var portable = SHA256(implementation: .portable)
        portable.update(message)
        let expected = portable.finalize()
        var cuts = (0..<Int.random(in: 1...8, using: &random)).map { _ in
          Int.random(in: 0...length, using: &random)
        }
        cuts.append(contentsOf: [0, length])
        cuts.sort()
        var hardware = SHA256(implementation: SHA256.implementation)
        var portableInPieces = SHA256(implementation: .portable)
        for (from, to) in zip(cuts, cuts.dropFirst()) {
          let piece = UnsafeRawBufferPointer(rebasing: message[from..<to])
          hardware.update(piece)
          portableInPieces.update(piece)
        }
        if hardware.finalize() != expected || portableInPieces.finalize() != expected
          || hardware.midstate != portableInPieces.midstate
        {
          mismatches.append("length \(length) at offset \(offset), cuts \(cuts)")
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5)), seed \(seed)")
  }

  @Test func portableCodeMatchesTheReferenceOnRandomMessages() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for _ in 0..<50 {
      let length = Int.random(in: 0...2000, using: &random)
      let message = random.bytes(count: length)
      #expect(
        Self.hash(message, .portable) == ReferenceSHA256.hash(message),
        "length \(length), seed \(seed)")
    }
  }

  @Test func aMidstateResumesWithEitherImplementation() throws {
    var random = SplitMix64(seed: TestSeed.make(fallback: 0x5348_4134))
    let message = random.bytes(count: 777)
    for first in Self.runnable {
      for second in Self.runnable {
        var hasher = SHA256(implementation: first)
        hasher.update(message[..<300])
        var resumed = try #require(SHA256(midstate: hasher.midstate, implementation: second))
        resumed.update(message[300...])
        #expect(resumed.finalize() == SHA256.hash(message), "\(first) then \(second)")
      }
    }
  }
}

@Suite struct SHA256PrefixedTests {
  @Test func prefixedHashEqualsTheHashOfThePrefixAndTheBytesForEveryLengthUpTo300() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    let bytes = random.bytes(count: 300)
    var mismatches: [Int] = []
    for length in 0...300 {
      let prefix = UInt8(truncatingIfNeeded: length)
      let expected = ReferenceSHA256.hash([prefix] + bytes[..<length])
      for implementation in SHA256ImplementationTests.runnable {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { buffer in
          digest.withUnsafeMutableBytes { output in
            SHA256.hash(
              prefix: prefix, UnsafeRawBufferPointer(rebasing: buffer[..<length]),
              into: output.baseAddress!, implementation: implementation)
          }
        }
        if digest != expected { mismatches.append(length) }
      }
      let viaArray = bytes.withUnsafeBytes {
        SHA256.hash(prefix: prefix, UnsafeRawBufferPointer(rebasing: $0[..<length]))
      }
      if viaArray != expected { mismatches.append(length) }
    }
    #expect(mismatches.isEmpty, "lengths \(mismatches.prefix(5)), seed \(seed)")
  }
}

/// The tree's batch hashes (`leafHashes`, `nodeHashes`): two messages at a time with the CPU's
/// instructions, each digest what one `hash(prefix:_:)` of it gives, whatever the lengths side
/// by side.
@Suite struct SHA256BatchTests {
  @Test(arguments: SHA256ImplementationTests.runnable)
  func leafHashesOfLinesOfEveryLengthEqualOneHashEach(
    _ implementation: SHA256.Implementation
  ) throws {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    // Lines of 0...300 bytes (no `\n` inside), in a random order so that pairs of every two
    // lengths meet, then a partial line that is left.
    var lengths = Array(0...300) + Array(0...300)
    lengths.shuffle(using: &random)
    var text: [UInt8] = []
    var lines: [[UInt8]] = []
    for length in lengths {
      let line = random.bytes(count: length).map { $0 == 0x0A ? 0x0B : $0 }
      lines.append(line)
      text += line + [0x0A]
    }
    let wholeCount = text.count
    text += [0x41, 0x42]
    let firstIndex: Int64 = 250
    var digests = [UInt8](repeating: 0, count: lines.count * 32)
    var starts = [Int64](repeating: -1, count: lines.count / 256 + 1)
    let done = text.withUnsafeBytes { bytes in
      digests.withUnsafeMutableBytes { output in
        starts.withUnsafeMutableBufferPointer { starts in
          SHA256.leafHashes(
            of: bytes, firstIndex: firstIndex, tileWidth: 256, into: output.baseAddress!,
            capacity: lines.count, tileStarts: starts.baseAddress!,
            implementation: implementation)
        }
      }
    }
    #expect(done.lines == lines.count)
    #expect(done.consumedBytes == wholeCount)
    var offset: Int64 = 0
    var expectedStarts: [Int64] = []
    var mismatches: [Int] = []
    for (index, line) in lines.enumerated() {
      if (firstIndex + Int64(index)) % 256 == 0 { expectedStarts.append(offset) }
      offset += Int64(line.count + 1)
      if Array(digests[index * 32..<index * 32 + 32]) != ReferenceSHA256.hash([0] + line) {
        mismatches.append(line.count)
      }
    }
    #expect(mismatches.isEmpty, "line lengths \(mismatches.prefix(5)), seed \(seed)")
    #expect(done.tileStarts == expectedStarts.count)
    #expect(Array(starts[..<done.tileStarts]) == expectedStarts)
  }

  @Test(arguments: SHA256ImplementationTests.runnable)
  func leafHashesStopAtTheCapacityAndAtTheLastNewline(_ implementation: SHA256.Implementation) {
    let text = Array("a\nbb\n\nccc\ndd".utf8)
    var digests = [UInt8](repeating: 0, count: 4 * 32)
    var starts = [Int64](repeating: -1, count: 2)
    func hash(capacity: Int) -> SHA256.LeafHashCount {
      text.withUnsafeBytes { bytes in
        digests.withUnsafeMutableBytes { output in
          SHA256.leafHashes(
            of: bytes, firstIndex: 3, tileWidth: 2, into: output.baseAddress!,
            capacity: capacity, tileStarts: &starts, implementation: implementation)
        }
      }
    }
    let three = hash(capacity: 3)
    #expect(three.lines == 3 && three.consumedBytes == 6 && three.tileStarts == 1)
    #expect(starts[0] == 2)  // line 4 ("bb") starts a tile of 2
    #expect(Array(digests[64..<96]) == ReferenceSHA256.hash([0]))  // the empty line
    let all = hash(capacity: 4)
    #expect(all.lines == 4 && all.consumedBytes == 10 && all.tileStarts == 2)
    #expect(Array(starts) == [2, 6])
    #expect(Array(digests[96..<128]) == ReferenceSHA256.hash([0] + Array("ccc".utf8)))
  }

  @Test(arguments: SHA256ImplementationTests.runnable)
  func nodeHashesEqualOneHashEachAlsoInPlace(_ implementation: SHA256.Implementation) {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for count in [0, 1, 2, 3, 7, 128] {
      let children = random.bytes(count: count * 64)
      let expected = (0..<count).flatMap { index in
        ReferenceSHA256.hash([1] + children[index * 64..<index * 64 + 64])
      }
      var parents = [UInt8](repeating: 0, count: count * 32)
      children.withUnsafeBytes { input in
        parents.withUnsafeMutableBytes { output in
          SHA256.nodeHashes(
            input.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: count,
            into: output.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 1)!,
            implementation: implementation)
        }
      }
      #expect(parents == expected, "\(count) pairs, seed \(seed)")
      var level = children
      level.withUnsafeMutableBytes { bytes in
        if let base = bytes.baseAddress {
          SHA256.nodeHashes(base, count: count, into: base, implementation: implementation)
        }
      }
      #expect(Array(level[..<(count * 32)]) == expected, "in place, \(count) pairs, seed \(seed)")
    }
  }
}
