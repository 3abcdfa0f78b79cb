import Testing

@testable import Engine
@testable import Projections

@Suite struct ChangeTextTests {
  @Test(arguments: [
    ("90001, 90002", "90001, 90002, 90003", "zipCodes: added 90003"),
    ("90001, 90002", "90002", "zipCodes: removed 90001"),
    ("90001, 90002", "90011, 90002", "zipCodes: 90001 → 90011"),
    ("", "35004", "zipCodes: added 35004"),
    ("1, 2, 3, 4", "1, 5, 6, 4", "zipCodes: 2, 3 → 5, 6"),
    ("1, 2", "", "zipCodes: removed 1, 2"),
  ])
  func aZipCodeListShowsOnlyThePartThatChanged(before: String, after: String, text: String) {
    let difference = EntryDiff.FieldDifference(name: "zipCodes", before: before, after: after)
    #expect(ChangeText.change(difference, model: ZipCodeList.name) == text)
  }

  @Test func otherFieldsShowBothValuesWithAbsentAndEmptyNamed() {
    func change(_ before: String?, _ after: String?, model: String = "contacts") -> String {
      ChangeText.change(.init(name: "companyName", before: before, after: after), model: model)
    }
    #expect(change("Muppets", "Muppets, Baby") == "companyName: Muppets → Muppets, Baby")
    #expect(change(nil, "Muppets") == "companyName: (none) → Muppets")
    #expect(change("Muppets", nil) == "companyName: Muppets → (none)")
    #expect(change("", "x") == "companyName: (empty) → x")
    // A field of that name in another model is no list.
    #expect(
      ChangeText.change(.init(name: "zipCodes", before: "1, 2", after: "1"), model: "contacts")
        == "zipCodes: 1, 2 → 1")
  }

  @Test func controlCharactersAreEscapedToKeepAValueOnItsLine() {
    #expect(ChangeText.value("a\r\nb\tc\u{1B}d\u{7F}") == "a\\r\\nb\\tc\\u{1B}d\\u{7F}")
    #expect(ChangeText.value("臺灣黑熊 🐻") == "臺灣黑熊 🐻")
    #expect(
      ChangeText.field(.init(name: "description", value: "two\nlines"))
        == "description: two\\nlines")
  }

  @Test func anEntrysLabelIsItsNameOrTitle() {
    #expect(ReadModelEntry(fields: [.init(name: "name", value: "Echo")]).label == "Echo")
    #expect(ReadModelEntry(fields: [.init(name: "title", value: "Hawk")]).label == "Hawk")
    #expect(
      ReadModelEntry(fields: [.init(name: "englishName", value: "Panda")]).label == "Panda")
    #expect(ReadModelEntry(fields: [.init(name: "zipCodes", value: "1")]).label == nil)
  }
}
