import Events
import Testing

/// `AnimalID.imported(latinName:chineseName:coordinate:occurrence:)`: an imported animal is its
/// name at its place (docs/FORMAT.md).
@Suite struct ImportedAnimalIDTests {
  private func id(
    _ latin: String, _ chinese: String = "", _ place: (Double, Double)? = nil,
    occurrence: Int = 1
  ) throws -> String? {
    let coordinate = try place.map { try Coordinate(latitude: $0.0, longitude: $0.1) }
    return AnimalID.imported(
      latinName: latin, chineseName: chinese, coordinate: coordinate, occurrence: occurrence)?
      .rawValue
  }

  @Test func withoutACoordinateTheIDIsTheLatinNamesAsBefore() throws {
    for latin in ["Ailuropoda melanoleuca", "  Bubo bubo éè", "Equus africanus (somaliensis)"] {
      #expect(try id(latin, "甲") == AnimalID.imported(latinName: latin)?.rawValue)
    }
    #expect(try id("Ailuropoda melanoleuca") == "zoo-ailuropoda-melanoleuca")
  }

  @Test func thePlaceIsTheCoordinateToSevenDecimalsWithItsHemispheres() throws {
    #expect(
      try id("Tomistoma schlegelii", "", (24.9946, 121.5903))
        == "zoo-tomistoma-schlegelii-at-24-9946n-121-5903e")
    #expect(try id("Alpha", "", (-33.5, -70.25)) == "zoo-alpha-at-33-5s-70-25w")
    #expect(try id("Alpha", "", (0, -0.0)) == "zoo-alpha-at-0n-0e")
    #expect(try id("Alpha", "", (-0.00000004, 180)) == "zoo-alpha-at-0n-180e")
    #expect(try id("Alpha", "", (1.00000005, 2.000000049)) == "zoo-alpha-at-1-0000001n-2e")
    #expect(try id("Alpha", "", (90, -180)) == "zoo-alpha-at-90n-180w")
  }

  @Test func aRepeatIsNumberedFromTwo() throws {
    #expect(try id("Alpha", occurrence: 2) == "zoo-alpha-2")
    #expect(try id("Alpha", "", (1, 2), occurrence: 12) == "zoo-alpha-at-1n-2e-12")
  }

  @Test func withoutALatinNameTheChineseNameSpellsItsCodePoints() throws {
    #expect(try id("", "臺灣黑熊") == "zoo-u81fa-u7063-u9ed1-u718a")
    #expect(try id(" ? ", "Ｂ區 黑熊2") == "zoo-b-u5340-u9ed1-u718a-2")
    #expect(try id("123", "鳥", (1, 2)) == "zoo-u9ce5-at-1n-2e")
    // Nothing to name it by, or only digits (which would read as an `_id`).
    #expect(try id("", "") == nil)
    #expect(try id("", " ・ ") == nil)
    #expect(try id("", "17") == nil)
  }

  @Test func aLongNameIsCutSoThatTheSlugKeepsTo200Characters() throws {
    let latin = String(repeating: "abcdefghi ", count: 30)
    let plain = try #require(try id(latin, "", nil))
    #expect(plain.count == 4 + 199)  // "zoo-", then 20 groups of 9 and their dashes, cut
    #expect(!plain.hasSuffix("-"))
    let placed = try #require(try id(latin, "", (24.9946, 121.5903), occurrence: 3))
    #expect(placed.hasSuffix("-at-24-9946n-121-5903e-3"))
    #expect(placed.count <= 204)
    #expect((try? AnimalID(placed)) != nil)
  }
}
