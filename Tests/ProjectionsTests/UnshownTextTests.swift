import Events
import Foundation
import Testing

@testable import Projections

/// Replay and `verify` decode with `JSONCursor.skipsUnshownText`: an imported animal's text that
/// no read model keeps is checked but not made. The catalogue must come out the same, and a
/// payload must be refused the same, as when every field is made.
@Suite struct UnshownTextTests {
  /// Long text with everything a string can hold: CJK, escapes, an astral scalar.
  static let longText = String(
    repeating: "成年駱駝的駝峰重約30公斤，\r\n \"引號\" \\ / \u{1F42B} tab\there ", count: 30)

  static func record(_ sourceID: Int) throws -> AnimalRecord {
    AnimalRecord(
      sourceID: sourceID, nameChinese: "雙峰駱駝 \(sourceID)", nameEnglish: "Bactrian Camel",
      nameLatin: "Camelus bactrianus \(sourceID)", alsoKnownAs: "戈壁雙峰駱駝", location: "沙漠動物區；兒童動物區",
      geo: "MULTIPOINT ((121.5855928 24.9949741))",
      coordinate: try Coordinate(latitude: 24.9949741, longitude: 121.5855928), phylum: "脊索動物門",
      taxonomicClass: "哺乳綱", order: "偶蹄目", family: "駱駝科", conservation: "瀕危 EN",
      distribution: "蒙古、新疆的戈壁沙漠", habitat: longText, feature: longText, behavior: longText,
      diet: longText, crisis: "crisis", interpretation: longText, themeName: "theme",
      themeURL: "http://www.zoo.gov.tw/theme", adopt: "adopt", code: "Camel-B",
      pictures: [
        MediaLink(url: "", alternativeText: "none"),
        MediaLink(url: "http://www.zoo.gov.tw/Camel-B_Pic01.jpg", alternativeText: "雙峰駱駝"),
      ],
      pdfs: [MediaLink(url: "http://www.zoo.gov.tw/a.pdf")], voices: [],
      videoURL: "https://www.youtube.com/playlist", update: "2018/6/28", cid: "6",
      summary: longText, keywords: "駱駝", poiGroup: "沙漠")
  }

  /// Decodes as replay does, leniently, with or without the text left unmade.
  static func decode(
    _ type: String, _ data: [UInt8], skipping: Bool
  ) -> Result<DomainEvent?, EventsError> {
    var typeName = type
    return typeName.withUTF8 { typeBytes in
      data.withUnsafeBytes { buffer in
        Result { () throws(EventsError) -> DomainEvent? in
          var cursor = JSONCursor(buffer)
          cursor.skipsUnshownText = skipping
          return try EventVocabulary.decode(
            type: typeBytes, schemaVersion: 2, data: &cursor, strict: false)
        }
      }
    }
  }

  static func encoded(_ record: AnimalRecord) -> [UInt8] {
    EventVocabulary.encode(.zoo(.imported(AnimalImported(record: record, source: "zoo.json")))).data
  }

  @Test func anAnimalKeepsWhatTheCatalogueShowsAndNothingElse() throws {
    let record = try Self.record(7)
    let data = Self.encoded(record)
    let full = try Self.decode("AnimalImported", data, skipping: false).get()
    let skipped = try Self.decode("AnimalImported", data, skipping: true).get()
    #expect(full == .zoo(.imported(AnimalImported(record: record, source: "zoo.json"))))
    guard case .zoo(.imported(let animal)) = skipped else {
      Issue.record("decoded \(String(describing: skipped))")
      return
    }
    let kept = animal.record
    #expect(kept.id == record.id && kept.sourceID == record.sourceID)
    #expect(kept.nameChinese == record.nameChinese && kept.nameEnglish == record.nameEnglish)
    #expect(kept.location == record.location)
    #expect(kept.pictures.map(\.url) == record.pictures.map(\.url))
    #expect(kept.pictures.allSatisfy { $0.alternativeText.isEmpty })
    #expect(kept.coordinate == record.coordinate && animal.source == "zoo.json")
    #expect(kept.feature.isEmpty && kept.behavior.isEmpty && kept.summary.isEmpty)
    #expect(kept.nameLatin.isEmpty && kept.code.isEmpty && kept.videoURL.isEmpty)
  }

  @Test func theCatalogueIsTheSameEitherWay() throws {
    let payloads = try (0..<20).map { Self.encoded(try Self.record($0 % 13)) }
    let full = try payloads.map { try Self.decode("AnimalImported", $0, skipping: false).get() }
    let skipped = try payloads.map { try Self.decode("AnimalImported", $0, skipping: true).get() }
    let fullCatalog = fold(AnimalCatalog.self, full.compactMap { $0 })
    let skippedCatalog = fold(AnimalCatalog.self, skipped.compactMap { $0 })
    #expect(fullCatalog.count == 13)
    #expect(fullCatalog == skippedCatalog)
    #expect(fullCatalog.animals == skippedCatalog.animals)
    #expect(fullCatalog.entries == skippedCatalog.entries)
  }

  @Test func unmadeTextIsRefusedWhereMadeTextIsRefused() throws {
    let valid = String(decoding: Self.encoded(try Self.record(3)), as: UTF8.self)
    let feature = "\"feature\":\"" + Self.jsonEscaped(Self.longText) + "\""
    #expect(valid.contains(feature))
    // A lone surrogate is repaired to U+FFFD when made, so both read it; the rest are refused.
    let broken = [
      ("\"feature\":12", true), ("\"feature\":null", true), ("\"feature\":[\"a\"]", true),
      ("\"feature\":{}", true), ("\"feature\":\"bad \\q escape\"", true),
      ("\"feature\":\"raw \u{01} control\"", true), ("\"feature\":\"cut \\u12\"", true),
      ("\"feature\":\"unterminated", true), ("\"feature\":true", true),
      ("\"feature\":\"lone \\ud800 surrogate\"", false),
    ]
    for (replacement, refused) in broken {
      let data = Array(valid.replacingOccurrences(of: feature, with: replacement).utf8)
      let full = Self.decode("AnimalImported", data, skipping: false)
      let skipped = Self.decode("AnimalImported", data, skipping: true)
      switch (full, skipped) {
      case (.failure(let fullError), .failure(let skippedError)):
        #expect(refused, "\(replacement)")
        #expect(fullError == skippedError, "\(replacement)")
      case (.success, .success): #expect(!refused, "\(replacement)")
      default: Issue.record("\(replacement): made \(full), unmade \(skipped)")
      }
    }
  }

  static func jsonEscaped(_ text: String) -> String {
    var writer = JSONWriter()
    writer.string(text)
    return String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
  }
}
