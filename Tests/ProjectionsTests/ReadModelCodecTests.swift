import Events
import Testing

@testable import Projections

/// Every model's own checkpoint encoding: round trips and refusals.
@Suite struct ReadModelCodecTests {
  /// Random states of every model, from `seed`.
  static func randomModels(seed: UInt64, events count: Int = 1_500) -> ReadModels {
    var events = RandomEvents(seed: seed)
    return foldAll(events.events(count: count))
  }

  /// Checks `decode(encode(model)) == model`, view for view, and that every strict prefix of
  /// the encoding is refused.
  static func checkRoundTrip<Model: ReadModel>(_ model: Model) throws {
    let bytes = model.checkpointBytes()
    let decoded = try Model(checkpointBytes: bytes)
    #expect(decoded == model)
    #expect(decoded.entries == model.entries)
    #expect(decoded.jsonText() == model.jsonText())
    #expect(decoded.count == model.count)
    #expect(decoded.checkpointBytes() == bytes, "the encoding is deterministic")
    for length in truncations(of: bytes) {
      #expect(throws: ProjectionsError.self, "\(Model.name) cut at \(length) of \(bytes.count)") {
        try Model(checkpointBytes: Array(bytes[..<length]))
      }
    }
    #expect(throws: ProjectionsError.self) { try Model(checkpointBytes: bytes + [0]) }
  }

  @Test(arguments: ReadModels.modelNames)
  func randomStatesRoundTripExactly(name: String) throws {
    for seedOffset: UInt64 in 0..<4 {
      let seed = TestRandom.seed(
        for: "ReadModelCodecTests.randomStatesRoundTripExactly(\(name))",
        fallback: 0xC0DE_C000 + seedOffset)
      let models = Self.randomModels(seed: seed)
      let model = try #require(models.model(named: name))
      #expect(model.count > 0)
      try Self.checkRoundTrip(model)
    }
  }

  /// Models loaded from a checkpoint keep most values in its bytes until used; folding more
  /// events into them (updates, removals, re-adds of stored entities) must give what folding
  /// the same events into the models that were saved gives.
  @Test func modelsLoadedFromACheckpointFoldOnAsTheOriginalsDo() throws {
    for seedOffset: UInt64 in 0..<3 {
      let seed = TestRandom.seed(
        for: "ReadModelCodecTests.modelsLoadedFromACheckpointFoldOn",
        fallback: 0x5707_ED00 + seedOffset)
      var random = RandomEvents(seed: seed)
      let before = random.events(count: 1_500)
      let after = random.events(count: 1_500)
      var original = foldAll(before)
      var loaded = try ReadModelCheckpoint(
        decoding: ReadModelCheckpoint(models: original, sequence: 1_500).encoded()
      ).models
      #expect(loaded == original)
      for (offset, event) in after.enumerated() {
        original.apply(event, at: context(Int64(1_501 + offset)))
        loaded.apply(event, at: context(Int64(1_501 + offset)))
      }
      #expect(loaded == original)
      for model in original.models {
        let name = type(of: model).name
        let other = try #require(loaded.model(named: name))
        #expect(other.jsonText() == model.jsonText(), "\(name)")
        #expect(other.entries == model.entries, "\(name)")
        #expect(other.checkpointBytes() == model.checkpointBytes(), "\(name)")
      }
      for id in original.contacts.records.map(\.id) {
        #expect(loaded.contacts.contact(id) == original.contacts.contact(id))
        #expect(
          loaded.contacts.entry(forID: id.rawValue) == original.contacts.entry(forID: id.rawValue))
      }
    }
  }

  @Test(arguments: ReadModels.modelNames)
  func emptyStatesRoundTrip(name: String) throws {
    let model = try #require(ReadModels().model(named: name))
    #expect(model.checkpointBytes() == [0])
    try Self.checkRoundTrip(model)
  }

  @Test func aContactsFlagsMustBeKnown() throws {
    var writer = BinaryWriter()
    writer.writeCount(1)
    writer.writeString("13")
    writer.writeInteger(UInt8(0))  // kept in clear
    writer.writeString("Miss Piggy")
    writer.writeInteger(UInt16(0x4000))
    #expect(
      throws: ProjectionsError.invalidCheckpoint(
        what: "contact '13' flags", offset: 16, expected: "bits 0-13 only", found: "0x4000")
    ) { try ContactList(checkpointBytes: writer.bytes) }
  }

  @Test func aContactsKindMustBeKnownAndAWithheldOneRefused() throws {
    for (kind, found) in [(UInt8(7), "7"), (2, "it withheld")] {
      var writer = BinaryWriter()
      writer.writeCount(1)
      writer.writeString("13")
      writer.writeInteger(kind)
      writer.writeInteger(UInt8(0))
      #expect(throws: ProjectionsError.self) { try ContactList(checkpointBytes: writer.bytes) }
      do {
        _ = try ContactList(checkpointBytes: writer.bytes)
      } catch {
        #expect(error.description.contains(found), "\(error)")
      }
    }
  }

  @Test func aContactsPresentFieldMustNotBeEmpty() {
    var writer = BinaryWriter()
    writer.writeCount(1)
    writer.writeString("13")
    writer.writeInteger(UInt8(0))
    writer.writeString("Miss Piggy")
    writer.writeInteger(UInt16(0b10))
    writer.writeString("")
    #expect(throws: ProjectionsError.self) { try ContactList(checkpointBytes: writer.bytes) }
  }

  @Test func idsAndValuesAreValidated() {
    func bytes(_ write: (inout BinaryWriter) -> Void) -> [UInt8] {
      var writer = BinaryWriter()
      write(&writer)
      return writer.bytes
    }
    // A contact id with a leading space.
    let contact = bytes {
      $0.writeCount(1)
      $0.writeString(" 13")
      $0.writeInteger(UInt8(0))
      $0.writeString("Miss Piggy")
      $0.writeInteger(UInt16(0))
    }
    #expect(throws: ProjectionsError.self) { try ContactList(checkpointBytes: contact) }
    // A zip code of four digits.
    let zip = bytes {
      $0.writeCount(1)
      $0.writeString("Ohio")
      $0.writeCount(1)
      $0.writeString("4300")
    }
    #expect(throws: ProjectionsError.self) { try ZipCodeList(checkpointBytes: zip) }
    // A classification past the last.
    let observation = bytes {
      $0.writeCount(1)
      $0.writeString("398f8d08492d")
      $0.writeInteger(UInt8(7))
      $0.writeString("Hawk")
      $0.writeString("")
      $0.writeInteger(Int64(0))
    }
    #expect(
      throws: ProjectionsError.invalidCheckpoint(
        what: "observation '398f8d08492d' classification", offset: 14, expected: "0 to 6",
        found: "7")
    ) { try ObservationList(checkpointBytes: observation) }
    // A picture kind past the last.
    let animal = bytes {
      $0.writeCount(1)
      $0.writeInteger(UInt8(0))
      $0.writeVarint(1)
      $0.writeInteger(Int64(1))
      for _ in 0..<4 { $0.writeString("") }
      $0.writeInteger(UInt8(3))
    }
    #expect(throws: ProjectionsError.self) { try AnimalCatalog(checkpointBytes: animal) }
    // A latitude that is not a number.
    let location = bytes {
      $0.writeCount(1)
      $0.writeString("l1")
      $0.writeString("Alpha")
      $0.writeDouble(.nan)
      $0.writeDouble(0)
    }
    #expect(throws: ProjectionsError.self) { try LocationList(checkpointBytes: location) }
  }

  @Test func anIDTwiceIsRefused() {
    var writer = BinaryWriter()
    writer.writeCount(2)
    for _ in 0..<2 {
      writer.writeString("l1")
      writer.writeString("Alpha")
      writer.writeDouble(1)
      writer.writeDouble(2)
    }
    #expect(
      throws: ProjectionsError.invalidCheckpoint(
        what: "a location id", offset: 26, expected: "each id once", found: "'l1' again")
    ) { try LocationList(checkpointBytes: writer.bytes) }
    var zips = BinaryWriter()
    zips.writeCount(1)
    zips.writeString("Ohio")
    zips.writeCount(2)
    zips.writeString("43001")
    zips.writeString("43001")
    #expect(throws: ProjectionsError.self) { try ZipCodeList(checkpointBytes: zips.bytes) }
  }
}
