import Events
import Testing

@testable import Projections

@Suite struct ReadModelsTests {
  @Test func theModelsAreNamed() {
    #expect(
      ReadModels.modelNames == ["contacts", "zipcodes", "observations", "animals", "locations"])
    let models = ReadModels()
    for name in ReadModels.modelNames {
      #expect(models.model(named: name).map { type(of: $0).name } == name)
    }
    #expect(models.model(named: "Contacts") == nil)
  }

  @Test func eachEventReachesOnlyTheModelOfItsDomain() {
    let seed = TestRandom.seed(
      for: "ReadModelsTests.eachEventReachesOnlyItsModel", fallback: 0xD15_9A7C)
    var random = RandomEvents(seed: seed)
    let events = random.events(count: 2_000)
    let models = foldAll(events)
    models.checkInvariants()
    #expect(models.contacts == fold(ContactList.self, events))
    #expect(models.zipCodes == fold(ZipCodeList.self, events))
    #expect(models.observations == fold(ObservationList.self, events))
    #expect(models.animals == fold(AnimalCatalog.self, events))
    #expect(models.locations == fold(LocationList.self, events))
  }

  @Test func foldsAgreeWithASimpleReference() {
    for seedOffset: UInt64 in 0..<5 {
      let seed = TestRandom.seed(
        for: "ReadModelsTests.foldsAgreeWithASimpleReference", fallback: 0x0_4AC1E + seedOffset)
      var random = RandomEvents(seed: seed)
      var models = ReadModels()
      var reference = ReferenceModels()
      for step in 1...3_000 {
        let event = random.event()
        models.apply(event, at: context(Int64(step)))
        reference.apply(event, sequence: Int64(step))
        if step % 500 == 0 {
          #expect(reference.differences(from: models) == [], "seed \(seed), step \(step)")
        }
      }
      models.checkInvariants()
    }
  }

  @Test func aCheckpointBetweenTwoHalvesChangesNothing() throws {
    for seedOffset: UInt64 in 0..<5 {
      let seed = TestRandom.seed(
        for: "ReadModelsTests.aCheckpointBetweenTwoHalvesChangesNothing",
        fallback: 0x4A1F_0000 + seedOffset)
      var random = RandomEvents(seed: seed)
      let events = random.events(count: 3_000)
      let whole = foldAll(events)
      let cut = Int.random(in: 0...events.count, using: &random.random)

      var firstHalf = ReadModels()
      for (offset, event) in events[..<cut].enumerated() {
        firstHalf.apply(event, at: context(Int64(offset + 1)))
      }
      let bytes = ReadModelCheckpoint(models: firstHalf, sequence: Int64(cut)).encoded()
      let restored = try ReadModelCheckpoint(decoding: bytes)
      #expect(restored.sequence == Int64(cut))
      var resumed = restored.models
      for (offset, event) in events[cut...].enumerated() {
        resumed.apply(event, at: context(Int64(cut + offset + 1)))
      }
      #expect(resumed == whole, "seed \(seed), cut at \(cut)")
      // The same log gives the same checkpoint bytes, however it was folded.
      #expect(
        ReadModelCheckpoint(models: resumed, sequence: 1).encoded()
          == ReadModelCheckpoint(models: whole, sequence: 1).encoded())
      for (left, right) in zip(resumed.models, whole.models) {
        #expect(left.jsonText() == right.jsonText(), "seed \(seed), \(type(of: left).name)")
        #expect(left.entries == right.entries)
      }
      resumed.checkInvariants()
    }
  }
}
