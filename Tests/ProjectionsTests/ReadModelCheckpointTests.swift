import Events
import Testing

@testable import Projections

@Suite struct ReadModelCheckpointTests {
  /// An envelope built by hand from the documented layout.
  static func envelope(
    version: UInt16 = 1, sequence: Int64, anchor: String,
    sections: [(name: String, version: Int, payload: [UInt8])]
  ) -> [UInt8] {
    var writer = BinaryWriter()
    writer.writeBytes(Array("RMCK".utf8))
    writer.writeInteger(version)
    writer.writeInteger(sequence)
    writer.writeString(anchor)
    writer.writeCount(sections.count)
    for section in sections {
      writer.writeString(section.name)
      writer.writeCount(section.version)
      writer.writeInteger(UInt64(section.payload.count))
      writer.writeBytes(section.payload)
    }
    writer.writeInteger(CRC32C.checksum(of: writer.bytes))
    return writer.bytes
  }

  /// Every model empty, at its current version (animals are at 2: ids by Latin name).
  static let emptySections = ReadModels.modelTypes.map {
    (name: $0.name, version: $0.checkpointVersion, payload: [UInt8(0)])
  }

  @Test func theLayoutIsTheDocumentedOne() {
    let bytes = ReadModelCheckpoint(models: ReadModels(), sequence: 7, anchor: "a").encoded()
    #expect(bytes == Self.envelope(sequence: 7, anchor: "a", sections: Self.emptySections))
    // Header 17 (anchor "a"), then per model its name, version, length and a 1-byte empty
    // state, then the checksum.
    let names = (1 + 8) + (1 + 8) + (1 + 12) + (1 + 7) + (1 + 9)
    #expect(bytes.count == 17 + names + 5 * (1 + 8 + 1) + 4)
  }

  @Test func randomStatesRoundTrip() throws {
    for seedOffset: UInt64 in 0..<3 {
      let seed = TestRandom.seed(
        for: "ReadModelCheckpointTests.randomStatesRoundTrip", fallback: 0xC4EC_0000 + seedOffset)
      let models = ReadModelCodecTests.randomModels(seed: seed)
      let checkpoint = ReadModelCheckpoint(
        models: models, sequence: 1_500, anchor: "4b7f6e0e-1c2d-4d0a-9b1e-6f2d3c4b5a69")
      let bytes = checkpoint.encoded()
      let decoded = try ReadModelCheckpoint(decoding: bytes)
      #expect(decoded == checkpoint)
      for model in models.models {
        #expect(decoded.models.model(named: type(of: model).name)?.jsonText() == model.jsonText())
      }
      let (contacts, sequence, anchor) = try ReadModelCheckpoint.decode(
        ContactList.self, from: bytes)
      #expect(contacts == models.contacts)
      #expect(sequence == 1_500)
      #expect(anchor == "4b7f6e0e-1c2d-4d0a-9b1e-6f2d3c4b5a69")
      #expect(
        try ReadModelCheckpoint.decode(LocationList.self, from: bytes).model == models.locations)
    }
  }

  @Test func everyChangedByteIsDetected() throws {
    let seed = TestRandom.seed(
      for: "ReadModelCheckpointTests.everyChangedByte", fallback: 0xBADB_17E5)
    let models = ReadModelCodecTests.randomModels(seed: seed, events: 120)
    let bytes = ReadModelCheckpoint(models: models, sequence: 120, anchor: "x").encoded()
    var random = TestRandom(seed: seed)
    for offset in bytes.indices {
      var damaged = bytes
      damaged[offset] ^= UInt8.random(in: 1...255, using: &random)
      #expect(throws: ProjectionsError.self, "byte \(offset) of \(bytes.count)") {
        try ReadModelCheckpoint(decoding: damaged)
      }
    }
  }

  @Test func everyTruncationIsDetected() throws {
    let seed = TestRandom.seed(for: "ReadModelCheckpointTests.everyTruncation", fallback: 0x7_0C47)
    let models = ReadModelCodecTests.randomModels(seed: seed, events: 120)
    let bytes = ReadModelCheckpoint(models: models, sequence: 120, anchor: "x").encoded()
    for length in truncations(of: bytes) {
      #expect(throws: ProjectionsError.self, "cut at \(length) of \(bytes.count)") {
        try ReadModelCheckpoint(decoding: Array(bytes[..<length]))
      }
    }
  }

  @Test func aDifferentEnvelopeOrModelVersionIsRefused() throws {
    #expect(
      throws: ProjectionsError.unsupportedCheckpointVersion(
        model: "checkpoint", expected: 1, found: 2)
    ) {
      try ReadModelCheckpoint(
        decoding: Self.envelope(version: 2, sequence: 1, anchor: "", sections: Self.emptySections))
    }
    var sections = Self.emptySections
    sections[3].version = 9
    let bytes = Self.envelope(sequence: 1, anchor: "", sections: sections)
    #expect(
      throws: ProjectionsError.unsupportedCheckpointVersion(
        model: "animals", expected: AnimalCatalog.checkpointVersion, found: 9)
    ) { try ReadModelCheckpoint(decoding: bytes) }
    #expect(try ReadModelCheckpoint.decode(ZipCodeList.self, from: bytes).model == ZipCodeList())
  }

  @Test func aMissingModelIsNamed() throws {
    let bytes = Self.envelope(
      sequence: 3, anchor: "",
      sections: [(name: "contacts", version: ContactList.checkpointVersion, payload: [0])])
    #expect(
      throws: ProjectionsError.modelNotInCheckpoint(name: "zipcodes", available: ["contacts"])
    ) { try ReadModelCheckpoint(decoding: bytes) }
    #expect(try ReadModelCheckpoint.decode(ContactList.self, from: bytes).sequence == 3)
  }

  @Test func aModelTwiceOrBytesLeftOverAreRefused() {
    let twice = Self.envelope(
      sequence: 3, anchor: "",
      sections: Self.emptySections + [(name: "contacts", version: 1, payload: [0])])
    #expect(throws: ProjectionsError.self) { try ReadModelCheckpoint(decoding: twice) }
    var sections = Self.emptySections
    sections[0].payload = [0, 0]
    #expect(
      throws: ProjectionsError.invalidCheckpoint(
        what: "'contacts' state", offset: 35, expected: "the end", found: "1 more bytes")
    ) {
      try ReadModelCheckpoint(decoding: Self.envelope(sequence: 1, anchor: "", sections: sections))
    }
  }

  @Test func aForeignFileIsRefusedByItsMagic() {
    var bytes = Self.envelope(sequence: 1, anchor: "", sections: Self.emptySections)
    bytes[0] = UInt8(ascii: "X")
    #expect(throws: ProjectionsError.self) { try ReadModelCheckpoint(decoding: bytes) }
    #expect(throws: ProjectionsError.self) { try ReadModelCheckpoint(decoding: []) }
    #expect(throws: ProjectionsError.self) {
      try ReadModelCheckpoint(decoding: Array(#"{"seq":1}"#.utf8) + Array(repeating: 0, count: 20))
    }
  }
}
