import Events
import Testing

@testable import Projections

@Suite struct EntryDiffTests {
  static func entry(_ fields: KeyValuePairs<String, String>) -> ReadModelEntry {
    ReadModelEntry(fields: fields.map { ReadModelEntry.Field(name: $0.key, value: $0.value) })
  }

  @Test func addedRemovedAndChangedEntitiesFieldByField() {
    let before: [EntityKey: ReadModelEntry] = [
      "1": Self.entry(["name": "Ann", "isFavorite": "false", "phone.work": "1"]),
      "2": Self.entry(["name": "Bob"]),
      "3": Self.entry(["name": "Cy"]),
    ]
    let after: [EntityKey: ReadModelEntry] = [
      "1": Self.entry(["name": "Anne", "isFavorite": "false", "phone.home": "2"]),
      "3": Self.entry(["name": "Cy"]),
      "4": Self.entry(["name": "Dee"]),
    ]
    let diff = EntryDiff(from: before, to: after)
    #expect(diff.added.map(\.id) == ["4"])
    #expect(diff.added.first?.entry == Self.entry(["name": "Dee"]))
    #expect(diff.removed.map(\.id) == ["2"])
    #expect(
      diff.changed == [
        EntryDiff.Change(
          id: "1",
          fields: [
            .init(name: "name", before: "Ann", after: "Anne"),
            .init(name: "phone.home", before: nil, after: "2"),
            .init(name: "phone.work", before: "1", after: nil),
          ])
      ])
    #expect(!diff.isEmpty)
    #expect(EntryDiff(from: before, to: before).isEmpty)
  }

  @Test func anEntityThatDoesNotExistOnOneSideHasEveryFieldChanged() {
    let entry = Self.entry(["name": "Ann", "isFavorite": "true"])
    #expect(
      EntryDiff.differences(from: nil, to: entry) == [
        .init(name: "name", before: nil, after: "Ann"),
        .init(name: "isFavorite", before: nil, after: "true"),
      ])
    #expect(
      EntryDiff.differences(from: entry, to: nil) == [
        .init(name: "name", before: "Ann", after: nil),
        .init(name: "isFavorite", before: "true", after: nil),
      ])
    #expect(entry["isFavorite"] == "true")
    #expect(entry["company"] == nil)
  }
}
