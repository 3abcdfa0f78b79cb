import Events
import Foundation
import Testing

@testable import Projections

@Suite struct ObservationListTests {
  static let hawkID = observationID("398f8d08492d")
  static let frogID = observationID("3073e8812eee")

  static func recorded(
    _ id: ObservationID, _ classification: Classification, _ title: String, _ date: String,
    description: String = ""
  ) -> DomainEvent {
    .observation(
      .recorded(
        ObservationRecorded(
          id: id,
          record: ObservationRecord(
            classification: classification, title: title, description: description,
            date: timestamp(date)))))
  }

  static let hawk = recorded(
    hawkID, .bird, "Red-tailed Hawk", "2017-06-14T18:00:00Z",
    description: "Standing in tree in middle of wooded area.")

  @Test func theScreensHaveTheirTitles() {
    #expect(ObservationList.listTitle == "Field Survey")
    #expect(ObservationList.detailTitle == "Observation")
  }

  @Test func rowsAreByDateThenByID() {
    let list = fold(
      ObservationList.self,
      [
        Self.recorded(observationID("bbbbbbbbbbbb"), .fish, "Later", "2017-06-15T11:10:00Z"),
        Self.recorded(
          observationID("cccccccccccc"), .plant, "Same time, id c", "2017-06-14T18:00:00Z"),
        Self.recorded(
          observationID("aaaaaaaaaaaa"), .insect, "Same time, id a", "2017-06-14T18:00:00Z"),
        Self.recorded(observationID("dddddddddddd"), .mammal, "Earliest", "2001-01-01T00:00:00Z"),
      ])
    #expect(
      list.rows().map(\.title) == ["Earliest", "Same time, id a", "Same time, id c", "Later"])
  }

  @Test func aRowShowsTheIconTitleMediumDateAndDescription() throws {
    let list = fold(ObservationList.self, [Self.hawk])
    let row = try #require(list.rows().first)
    #expect(row.id == Self.hawkID)
    #expect(row.classification == .bird)
    #expect(row.icon.name == "bird")
    #expect(row.icon.fileNames == ["bird.png", "bird@2x.png", "bird@3x.png"])
    #expect(row.title == "Red-tailed Hawk")
    #expect(row.dateText == "Jun 14, 2017 at 6:00:00 PM")
    #expect(row.description == "Standing in tree in middle of wooded area.")
    #expect(list.row(for: Self.hawkID) == row)
    #expect(list.row(for: Self.frogID) == nil)
  }

  @Test(arguments: Classification.allCases)
  func everyClassificationNamesItsIcons(classification: Classification) {
    let icon = ClassificationIcon(classification)
    let name = classification.rawValue
    #expect(icon.name == name)
    #expect(icon.fileNames == ["\(name).png", "\(name)@2x.png", "\(name)@3x.png"])
  }

  @Test(
    arguments: [
      ("en_US", "UTC", "Jun 14, 2017 at 6:00:00 PM"),
      ("en_US", "America/New_York", "Jun 14, 2017 at 2:00:00 PM"),
      ("en_US", "Asia/Taipei", "Jun 15, 2017 at 2:00:00 AM"),
      ("fr_FR", "Europe/Paris", "14 juin 2017 à 20:00:00"),
      ("de_DE", "Europe/Berlin", "14.06.2017, 20:00:00"),
    ])
  func datesAreFormattedForTheViewsLocaleAndTimeZone(
    locale: String, timeZone: String, expected: String
  ) throws {
    let options = ViewOptions(
      locale: Locale(identifier: locale), timeZone: try #require(TimeZone(identifier: timeZone)))
    let text = ObservationList.dateText(timestamp("2017-06-14T18:00:00Z"), options: options)
    #expect(text == expected)
    #expect(!text.unicodeScalars.contains { $0 == "\u{202F}" || $0 == "\u{00A0}" })
  }

  @Test func aRevisionChangesOnlyWhatItCarries() throws {
    let list = fold(
      ObservationList.self,
      [
        Self.hawk,
        .observation(
          .revised(
            ObservationRevised(
              id: Self.hawkID, title: "Red-tailed Hawk (juvenile)",
              date: timestamp("2017-06-14T19:30:00Z")))),
      ])
    let row = try #require(list.rows().first)
    #expect(row.title == "Red-tailed Hawk (juvenile)")
    #expect(row.classification == .bird)
    #expect(row.description == "Standing in tree in middle of wooded area.")
    #expect(row.dateText == "Jun 14, 2017 at 7:30:00 PM")
  }

  @Test func removedObservationsDisappearAndUnknownOnesStayUnknown() {
    let list = fold(
      ObservationList.self,
      [
        Self.hawk,
        Self.recorded(Self.frogID, .amphibian, "American Bullfrog", "2017-06-15T11:10:00Z"),
        .observation(.removed(ObservationRemoved(id: Self.hawkID))),
        .observation(.revised(ObservationRevised(id: Self.hawkID, title: "Back?"))),
        .observation(.removed(ObservationRemoved(id: observationID("000000000000")))),
      ])
    #expect(list.rows().map(\.title) == ["American Bullfrog"])
    #expect(list.count == 1)
  }

  @Test func jsonCarriesTheInstantAndTheFormattedText() throws {
    let list = fold(ObservationList.self, [Self.hawk])
    #expect(
      list.jsonText()
        == #"{"title":"Field Survey","detailTitle":"Observation","locale":"en_US","timeZone":"GMT","#
        + #""observations":[{"id":"398f8d08492d","classification":"bird","icon":"bird","#
        + #""iconFiles":["bird.png","bird@2x.png","bird@3x.png"],"title":"Red-tailed Hawk","#
        + #""date":"2017-06-14T18:00:00.000Z","dateText":"Jun 14, 2017 at 6:00:00 PM","#
        + #""description":"Standing in tree in middle of wooded area."}]}"#)
    let paris = ViewOptions(
      locale: Locale(identifier: "fr_FR"),
      timeZone: try #require(TimeZone(identifier: "Europe/Paris")))
    let text = list.jsonText(options: paris)
    #expect(text.contains(#""locale":"fr_FR","timeZone":"Europe/Paris""#))
    #expect(
      text.contains(#""date":"2017-06-14T18:00:00.000Z","dateText":"14 juin 2017 à 20:00:00""#))
  }

  @Test func entriesHoldTheFieldsInTheLogsForm() {
    let list = fold(ObservationList.self, [Self.hawk])
    #expect(
      list.entries == [
        "398f8d08492d": ReadModelEntry(fields: [
          .init(name: "classification", value: "bird"),
          .init(name: "title", value: "Red-tailed Hawk"),
          .init(name: "description", value: "Standing in tree in middle of wooded area."),
          .init(name: "date", value: "2017-06-14T18:00:00.000Z"),
        ])
      ])
    #expect(list.entry(forID: "398f8d08492d") == list.entries["398f8d08492d"])
    #expect(list.entry(forID: "not an id") == nil)
  }
}
