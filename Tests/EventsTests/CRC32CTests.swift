import Foundation
import Testing

@testable import Events

@Suite struct CRC32CTests {
  /// The checksum computed one bit at a time, straight from the polynomial: the oracle for the
  /// table-driven slicing-by-16 code and the hardware instructions.
  static func bitwiseChecksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var value: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      value ^= UInt32(byte)
      for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
    }
    return ~value
  }

  @Test func checkValueOfDigitsOneToNine() {
    #expect(CRC32C.checksum(of: "123456789") == 0xE306_9283)
    #expect(CRC32C.checksum(of: Array("123456789".utf8)) == 0xE306_9283)
    #expect(Self.bitwiseChecksum("123456789".utf8) == 0xE306_9283)
  }

  // RFC 3720 (iSCSI) appendix B.4.
  @Test(arguments: [
    ("32 bytes of zeros", [UInt8](repeating: 0x00, count: 32), 0x8A91_36AA as UInt32),
    ("32 bytes of 0xFF", [UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
    ("32 incrementing bytes 0x00-0x1F", (0...31).map { UInt8($0) }, 0x46DD_794E),
    ("32 decrementing bytes 0x1F-0x00", (0...31).reversed().map { UInt8($0) }, 0x113F_DB5C),
  ])
  func checksumMatchesRFC3720Vector(name: String, bytes: [UInt8], expected: UInt32) {
    #expect(CRC32C.checksum(of: bytes) == expected)
    #expect(Self.bitwiseChecksum(bytes) == expected)
    bytes.withUnsafeBytes { buffer in
      #expect(CRC32C.softwareChecksum(buffer) == expected)
      if CRC32C.implementation != .software {
        #expect(CRC32C.hardwareChecksum(buffer) == expected)
      }
    }
  }

  @Test func reportsTheImplementationThisCPUSupports() {
    print("CRC-32C implementation on this machine: \(CRC32C.implementation)")
    #if arch(x86_64)
      #expect(CRC32C.implementation == .x86SSE42 || CRC32C.implementation == .software)
    #elseif arch(arm64)
      #expect(CRC32C.implementation == .arm64CRC32 || CRC32C.implementation == .software)
    #else
      #expect(CRC32C.implementation == .software)
    #endif
    // Every x86-64 CPU since 2008 and every arm64 CPU Swift runs on has the instructions; a
    // fallback there means detection is broken. REPLAY_EXPECT_SOFTWARE_CRC=1 accepts it (an
    // emulator without them).
    if ProcessInfo.processInfo.environment["REPLAY_EXPECT_SOFTWARE_CRC"] != "1" {
      #if arch(x86_64) || arch(arm64)
        #expect(CRC32C.implementation != .software)
      #endif
    }
  }

  @Test func hardwareSoftwareAndBitwiseAgreeForEveryLengthUpTo4096() throws {
    try #require(CRC32C.implementation != .software, "no CRC-32C instructions on this CPU")
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    // One random buffer with 7 bytes of slack, so each length is also tried off alignment.
    let bytes = random.bytes(count: 4096 + 7)
    var mismatches: [String] = []
    bytes.withUnsafeBytes { whole in
      for length in 0...4096 {
        let offset = length % 8
        let buffer = UnsafeRawBufferPointer(rebasing: whole[offset..<offset + length])
        let expected = Self.bitwiseChecksum(buffer)
        let continuing = UInt32(truncatingIfNeeded: length &* 0x9E37_79B9)
        let software = CRC32C.softwareChecksum(buffer)
        let hardware = CRC32C.hardwareChecksum(buffer)
        let softwareContinuing = CRC32C.softwareChecksum(buffer, continuing: continuing)
        let hardwareContinuing = CRC32C.hardwareChecksum(buffer, continuing: continuing)
        if software != expected || hardware != expected
          || softwareContinuing != hardwareContinuing
        {
          mismatches.append("length \(length) at offset \(offset)")
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5)), seed \(seed)")
  }

  @Test(arguments: [1, 3, 8, 13, 64, 300])
  func hardwareAndSoftwareAgreeAcrossContinuingSplits(pieceLength: Int) throws {
    try #require(CRC32C.implementation != .software, "no CRC-32C instructions on this CPU")
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for _ in 0..<50 {
      let bytes = random.bytes(count: Int.random(in: 0...2000, using: &random))
      let expected = Self.bitwiseChecksum(bytes)
      var software: UInt32 = 0
      var hardware: UInt32 = 0
      bytes.withUnsafeBytes { buffer in
        var start = 0
        while start < buffer.count {
          let end = min(buffer.count, start + pieceLength)
          let piece = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
          software = CRC32C.softwareChecksum(piece, continuing: software)
          hardware = CRC32C.hardwareChecksum(piece, continuing: hardware)
          start = end
        }
      }
      #expect(software == expected, "length \(bytes.count), seed \(seed)")
      #expect(hardware == expected, "length \(bytes.count), seed \(seed)")
    }
  }

  @Test func checksumOfNothingIsZeroAndContinuingOverNothingChangesNothing() {
    #expect(CRC32C.checksum(of: [UInt8]()) == 0)
    #expect(
      CRC32C.checksum(UnsafeRawBufferPointer(start: nil, count: 0), continuing: 0xE306_9283)
        == 0xE306_9283)
  }

  @Test func continuingAcrossEverySplitEqualsOneShot() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300] {
      let bytes = random.bytes(count: length)
      let oneShot = CRC32C.checksum(of: bytes)
      #expect(oneShot == Self.bitwiseChecksum(bytes), "length \(length), seed \(seed)")
      bytes.withUnsafeBytes { buffer in
        for split in 0...length {
          let first = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[..<split]))
          let both = CRC32C.checksum(
            UnsafeRawBufferPointer(rebasing: buffer[split...]), continuing: first)
          #expect(both == oneShot, "length \(length), split \(split), seed \(seed)")
        }
      }
    }
  }

  @Test func randomChunksAtRandomAlignmentsMatchBitwiseReference() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    let rounds = slowTestsEnabled ? 5000 : 200
    for _ in 0..<rounds {
      // A prefix shifts the data off 8-byte alignment, which the word loads must not care about.
      let prefix = Int.random(in: 0...7, using: &random)
      let bytes = random.bytes(count: prefix + Int.random(in: 0...1000, using: &random))
      var crc: UInt32 = 0
      var start = prefix
      bytes.withUnsafeBytes { buffer in
        while start < bytes.count {
          let end = min(bytes.count, start + Int.random(in: 1...100, using: &random))
          crc = CRC32C.checksum(
            UnsafeRawBufferPointer(rebasing: buffer[start..<end]), continuing: crc)
          start = end
        }
      }
      #expect(crc == Self.bitwiseChecksum(bytes[prefix...]), "seed \(seed)")
    }
  }

  @Test func everySingleByteChangeOfALineChangesTheChecksum() {
    // A log-like line of exactly 300 bytes.
    var line = Array(
      #"{"seq":1234,"id":"8d639eb2-d1c4-8e4a-89d1-597cf7d0bf25","stream":"contact-13","#.utf8)
    line += Array(#""type":"ZipCodeModified","at":"2026-11-22T10:15:00.000Z","data":{"zip":"#.utf8)
    while line.count < 298 { line.append(UInt8(ascii: "9")) }
    line += Array("}}".utf8)
    #expect(line.count == 300)
    let original = CRC32C.checksum(of: line)

    // CRC-32C catches every burst of up to 32 bits, so every other value at every position.
    var undetected: [(position: Int, value: UInt8)] = []
    for position in line.indices {
      var changed = line
      for value in UInt8.min...UInt8.max where value != line[position] {
        changed[position] = value
        if CRC32C.checksum(of: changed) == original { undetected.append((position, value)) }
      }
    }
    #expect(undetected.isEmpty, "\(undetected.prefix(5))")
  }
}
