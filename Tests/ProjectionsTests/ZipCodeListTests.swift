import Events
import Testing

@testable import Projections

@Suite struct ZipCodeListTests {
  static func stateAdded(_ state: String) -> DomainEvent {
    .state(.stateAdded(StateAdded(state: stateName(state))))
  }

  static func added(_ state: String, _ zip: String) -> DomainEvent {
    .state(.zipCodeAdded(ZipCodeAdded(state: stateName(state), zipCode: zipCode(zip))))
  }

  static func modified(_ state: String, _ from: String, _ to: String) -> DomainEvent {
    .state(
      .zipCodeModified(
        ZipCodeModified(state: stateName(state), from: zipCode(from), to: zipCode(to))))
  }

  static func removed(_ state: String, _ zip: String) -> DomainEvent {
    .state(.zipCodeRemoved(ZipCodeRemoved(state: stateName(state), zipCode: zipCode(zip))))
  }

  static func lists(_ list: ZipCodeList) -> [String: [String]] {
    Dictionary(
      uniqueKeysWithValues: list.states.map { ($0.name.rawValue, $0.zipCodes.map(\.rawValue)) })
  }

  @Test func statesAreSortedByNameEachWithItsZipCodesInOrder() {
    let list = fold(
      ZipCodeList.self,
      [
        Self.stateAdded("New York"), Self.added("New York", "10002"),
        Self.added("New York", "10001"), Self.stateAdded("alabama"), Self.stateAdded("Émile"),
        Self.stateAdded("Alaska"), Self.added("Alaska", "99501"), Self.stateAdded("Egypt"),
      ])
    #expect(
      list.states.map(\.name.rawValue) == ["alabama", "Alaska", "Egypt", "Émile", "New York"])
    #expect(list.zipCodes(in: stateName("New York")) == [zipCode("10002"), zipCode("10001")])
    #expect(list.zipCodes(in: stateName("alabama")) == [])
    #expect(list.zipCodes(in: stateName("Ohio")) == nil)
  }

  @Test func aModifiedZipCodeKeepsItsPlace() {
    let list = fold(
      ZipCodeList.self,
      [
        Self.stateAdded("California"), Self.added("California", "90001"),
        Self.added("California", "90002"), Self.added("California", "90003"),
        Self.modified("California", "90002", "90210-1234"),
      ])
    #expect(Self.lists(list) == ["California": ["90001", "90210-1234", "90003"]])
  }

  @Test func aZipCodeModifiedIntoOneTheStateHasIsDropped() {
    let list = fold(
      ZipCodeList.self,
      [
        Self.stateAdded("California"), Self.added("California", "90001"),
        Self.added("California", "90002"), Self.added("California", "90003"),
        Self.modified("California", "90001", "90003"),
      ])
    #expect(Self.lists(list) == ["California": ["90002", "90003"]])
  }

  @Test func modificationsAndRemovalsOfAbsentZipCodesChangeNothing() {
    let events = [
      Self.stateAdded("Ohio"), Self.added("Ohio", "43001"), Self.modified("Ohio", "43999", "43002"),
      Self.removed("Ohio", "43999"), Self.modified("Texas", "75001", "75002"),
      Self.removed("Texas", "75001"), Self.modified("Ohio", "43001", "43001"),
    ]
    #expect(Self.lists(fold(ZipCodeList.self, events)) == ["Ohio": ["43001"]])
  }

  @Test func removedZipCodesDisappearAndMayComeBackAtTheEnd() {
    let list = fold(
      ZipCodeList.self,
      [
        Self.stateAdded("Ohio"), Self.added("Ohio", "43001"), Self.added("Ohio", "43002"),
        Self.added("Ohio", "43003"), Self.removed("Ohio", "43002"), Self.added("Ohio", "43001"),
        Self.added("Ohio", "43002"),
      ])
    #expect(Self.lists(list) == ["Ohio": ["43001", "43003", "43002"]])
  }

  @Test func aZipCodeForAStateNeverAddedAddsTheState() {
    let list = fold(
      ZipCodeList.self,
      [Self.added("Utah", "84001"), Self.stateAdded("Utah"), Self.added("Utah", "84002")])
    #expect(Self.lists(list) == ["Utah": ["84001", "84002"]])
  }

  @Test func theSameZipCodeMayBelongToTwoStates() {
    let list = fold(
      ZipCodeList.self,
      [
        Self.added("Alaska", "99501"), Self.added("Arizona", "99501"),
        Self.removed("Alaska", "99501"),
      ])
    #expect(Self.lists(list) == ["Alaska": [], "Arizona": ["99501"]])
  }

  @Test func manyRemovalsAndModificationsMatchAPlainArray() {
    let seed = TestRandom.seed(for: "ZipCodeListTests.manyRemovals", fallback: 0x21F0_0001)
    var random = TestRandom(seed: seed)
    var list = ZipCodeList()
    var reference: [String] = []
    for step in 0..<5_000 {
      let zip = String(10_000 + Int.random(in: 0..<300, using: &random))
      let event: DomainEvent
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        event = Self.added("Ohio", zip)
        if !reference.contains(zip) { reference.append(zip) }
      case 5..<8:
        event = Self.removed("Ohio", zip)
        reference.removeAll { $0 == zip }
      default:
        let from = reference.isEmpty ? zip : random.pick(reference)
        event = Self.modified("Ohio", from, zip)
        if from != zip, let index = reference.firstIndex(of: from) {
          if reference.contains(zip) {
            reference.remove(at: index)
          } else {
            reference[index] = zip
          }
        }
      }
      list.apply(event, at: context(Int64(step + 1)))
    }
    list.checkInvariants()
    #expect(list.zipCodes(in: stateName("Ohio"))?.map(\.rawValue) == reference)
  }

  @Test func jsonHasTheDocumentedShape() {
    let list = fold(
      ZipCodeList.self,
      [
        Self.added("New York", "10001"), Self.added("New York", "10002"),
        Self.stateAdded("Alabama"),
      ])
    #expect(
      list.jsonText()
        == #"{"states":[{"name":"Alabama","zipCodes":[]},{"name":"New York","zipCodes":["10001","10002"]}]}"#
    )
  }

  @Test func entriesListTheZipCodesInOrder() {
    let list = fold(
      ZipCodeList.self,
      [
        Self.added("New York", "10001"), Self.added("New York", "10002"),
        Self.stateAdded("Alabama"),
      ])
    #expect(
      list.entries == [
        "New York": ReadModelEntry(fields: [.init(name: "zipCodes", value: "10001, 10002")]),
        "Alabama": ReadModelEntry(fields: [.init(name: "zipCodes", value: "")]),
      ])
    #expect(list.entry(forID: "New York") == list.entries["New York"])
    #expect(list.entry(forID: "Ohio") == nil)
    var modified = list
    modified.apply(Self.modified("New York", "10001", "10005"), at: context(4))
    #expect(
      EntryDiff(from: list.entries, to: modified.entries).changed == [
        EntryDiff.Change(
          id: "New York",
          fields: [.init(name: "zipCodes", before: "10001, 10002", after: "10005, 10002")])
      ])
  }
}
