import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

@Suite struct StateSourceParserTests {
  @Test func theDocumentedPlistLayoutKeepsStatesAndZipCodesInOrder() throws {
    let parsed = try SeedData.parse(.states, SeedData.statesPlist)
    #expect(parsed.problems.isEmpty)
    #expect(parsed.stateRecords.map(\.name) == ["California", "New York"])
    #expect(parsed.stateRecords.map(\.zipCodes) == [["90001", "90002"], ["10001", "10002"]])
  }

  @Test func theDictionaryLayoutKeepsTheJSONTextOrderAndAllowsSharedZipCodes() throws {
    let parsed = try SeedData.parse(.states, SeedData.statesJSON)
    #expect(parsed.problems.isEmpty)
    #expect(parsed.stateRecords.map(\.name) == ["Alabama", "Alaska", "Arizona", "Arkansas"])
    #expect(parsed.stateRecords.map(\.zipCodes.count) == [16, 17, 17, 17])
    #expect(parsed.stateRecords[0].zipCodes.prefix(3) == ["35004", "35005", "35006"])
    #expect(parsed.stateRecords[1].zipCodes == parsed.stateRecords[2].zipCodes)
    #expect(parsed.stateRecords[2].zipCodes == parsed.stateRecords[3].zipCodes)
    #expect(parsed.notes.isEmpty)
  }

  @Test func theDocumentedLayoutInJSONReadsLikeThePlist() throws {
    let plist = try SeedData.parse(.states, SeedData.statesPlist)
    let json = try parseSource(
      .states,
      """
      {"States": [{"Name": "California", "ZipCodes": ["90001", "90002"]},
                  {"name": "New York", "zipCodes": [10001, "10002"]}]}
      """)
    #expect(json.problems.isEmpty)
    #expect(json.stateRecords.map(\.name) == plist.stateRecords.map(\.name))
    #expect(json.stateRecords.map(\.zipCodes) == plist.stateRecords.map(\.zipCodes))
    // The digest depends on what is imported, not on the layout.
    #expect(json.records.map(\.digest) == plist.records.map(\.digest))
  }

  @Test func aPlistDictionaryKeepsItsTextOrder() throws {
    let parsed = try parseSource(
      .states,
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0">
      <dict>
        <key>Wyoming</key>
        <array><string>82001</string><integer>82002</integer></array>
        <!-- a comment -->
        <key>Alabama</key>
        <array><string>35004</string></array>
      </dict>
      </plist>
      """, name: "states.plist")
    #expect(parsed.problems.isEmpty)
    #expect(parsed.stateRecords.map(\.name) == ["Wyoming", "Alabama"])
    #expect(parsed.stateRecords[0].zipCodes == ["82001", "82002"])
  }

  @Test func anInvalidZipCodeLeavesOutOnlyItself() throws {
    let parsed = try parseSource(
      .states,
      """
      {"Alabama": ["35004", "350HH", 3500, "35004", "35005"], "  Texas": ["75001"], "Ohio": "43001"}
      """)
    #expect(parsed.stateRecords.map(\.name) == ["Alabama"])
    #expect(parsed.stateRecords[0].zipCodes == ["35004", "35004", "35005"])
    #expect(
      parsed.problems.map(\.description) == [
        "state record 1 (name 'Alabama'): field 'zipCodes[1]': \"350HH\" — expected a zip code of 5 digits or ZIP+4 (12345 or 12345-6789)",
        "state record 1 (name 'Alabama'): field 'zipCodes[2]': 3500 — expected a zip code of 5 digits or ZIP+4 (12345 or 12345-6789) (4 digits; leading zeros may have been lost)",
        "state record 2 (name '  Texas'): field 'name': \"  Texas\" — expected a state name of 1 to 200 bytes with no control characters and no leading or trailing white space (it starts or ends with white space; trim it)",
        "state record 3 (name 'Ohio'): field 'zipCodes': \"43001\" — expected an array of zip codes",
      ])
    #expect(parsed.problems.map(\.rejectsRecord) == [false, false, true, true])
    #expect(parsed.rejectedRecordCount == 2)
    #expect(parsed.invalidRecordCount == 3)
    #expect(
      parsed.notes == [
        "state record 1 (name 'Alabama') lists 1 zip code more than once; each is imported once"
      ])
  }

  @Test func aLargePlistWithSomeInvalidZipCodesListsEachAndKeepsTheRest() throws {
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
    for state in 0..<30 {
      text += "<key>State \(state)</key>\n<array>\n"
      for zip in 0..<1000 {
        let code = zip == 500 ? "350HH" : String(10000 + state * 1000 + zip)
        text += "  <string>\(code)</string>\n"
      }
      text += "</array>\n"
    }
    text += "</dict>\n</plist>\n"
    let parsed = try parseSource(.states, text, name: "states.plist")
    #expect(parsed.stateRecords.count == 30)
    #expect(parsed.stateRecords.allSatisfy { $0.zipCodes.count == 999 })
    #expect(parsed.stateRecords[29].zipCodes.last == "39999")
    #expect(parsed.problems.count == 30)
    #expect(parsed.problems.allSatisfy { $0.field == "zipCodes[500]" && !$0.rejectsRecord })
    #expect(parsed.rejectedRecordCount == 0)
    #expect {
      try parsed.requireValid()
    } throws: { error in
      let lines = (error as? ImportError)?.description.split(separator: "\n") ?? []
      return lines.count == 31
        && lines[0]
          == "30 invalid zip codes in 30 of 30 state records in 'states.plist'; nothing was "
          + "imported (--skip-invalid imports everything else):"
        && lines[1]
          == "  state record 1 (name 'State 0'): field 'zipCodes[500]': \"350HH\" — expected a "
          + "zip code of 5 digits or ZIP+4 (12345 or 12345-6789)"
    }
  }

  @Test func aMalformedPlistIsReportedWithItsLine() throws {
    #expect {
      try parseSource(
        .states, "<?xml version=\"1.0\"?>\n<plist>\n<dict>\n<key>A</ke>\n</dict></plist>",
        name: "bad.plist")
    } throws: { error in
      guard case .notPropertyList(let source, let line, _, let problem) = error as? ImportError
      else { return false }
      return source == "bad.plist" && line == 4
        && problem == "a closing tag does not match its opening tag"
    }
    #expect {
      try parseSource(.states, "<html><body>502</body></html>", name: "page.html")
    } throws: { error in
      (error as? ImportError)?.description
        == "'page.html' is not a valid property list: line 1, column 6: expected <plist> as the "
        + "root element, found <html>"
    }
    #expect {
      try parseSource(.states, "Alabama,35004", name: "states.csv")
    } throws: { error in
      (error as? ImportError)?.description
        == "'states.csv' is neither JSON nor a property list: it starts with 'Alabama,3500'; "
        + "expected '{' or '[' (JSON) or '<?xml' (an XML property list)"
    }
  }

  @Test func anotherKindOfJSONIsALayoutError() throws {
    #expect {
      try SeedData.parse(.states, SeedData.observations)
    } throws: { error in
      guard case .unexpectedLayout(_, .states, _, let found) = error as? ImportError else {
        return false
      }
      return found == "an object with keys 'status', 'observations'"
    }
  }
}

@Suite struct ZooSourceParserTests {
  @Test func theOldKeyStyleWithAByteOrderMarkInTheFirstKeyReadsEveryAnimal() throws {
    let parsed = try SeedData.parse(.zoo, SeedData.zoo)
    #expect(parsed.problems.isEmpty)
    let animals = parsed.animalRecords
    #expect(animals.map(\.sourceID) == Array(1...20))
    let panda = animals[0]
    #expect(panda.nameChinese == "大貓熊")
    #expect(panda.nameEnglish == "Giant Panda")
    #expect(panda.geo == "MULTIPOINT ((121.5831587 24.9971109))")
    #expect(panda.feature.contains("公克。\r\n 2. 具有"))
    #expect(panda.update == "########")
    #expect(panda.pictures.count == 4)
    #expect(panda.pdfs.count == 2)
    #expect(panda.voices.count == 3)
    #expect(panda.coordinate == nil)
    #expect(panda.code == "Panda")
    let kookaburra = animals[18]
    #expect(kookaburra.geo == "MULTIPOINT ((121.5827151 24.9963569)")
    #expect(kookaburra.pictures[2].isEmpty)
    #expect(parsed.records[0].label == "_id 1, name '大貓熊'")
    #expect(
      parsed.notes == [
        "'taipei-zoo-animals.json' is one page of the API's answer: 20 of 273 animals from "
          + "offset 0; import the other pages for the rest"
      ])
  }

  @Test func theCurrentLowercaseKeyStyleReadsTheSameAnimals() throws {
    let original = try SeedData.parse(.zoo, SeedData.zoo)
    let variant = try parseSource(.zoo, try Self.lowercaseVariant(), name: SeedData.zoo)
    #expect(variant.problems.isEmpty)
    // The same records; their ids name their place too, which only the current style gives
    // (docs/FORMAT.md, "An imported animal is its name at its place").
    let withoutCoordinates = variant.animalRecords.map { record -> AnimalRecord in
      var copy = record
      copy.coordinate = nil
      copy.id = AnimalID.imported(latinName: record.nameLatin) ?? record.id
      return copy
    }
    #expect(withoutCoordinates == original.animalRecords)
    #expect(
      variant.animalRecords[0].id.rawValue
        == "zoo-ailuropoda-melanoleuca-at-24-9971109n-121-5831587e")
    #expect(
      variant.animalRecords[0].coordinate
        == (try Coordinate(latitude: 24.9971109, longitude: 121.5831587)))
  }

  /// The seed file as the API serves it today: lowercase keys, no byte-order mark,
  /// `a_longitude` / `a_latitude` as strings from the first point of `A_Geo`, and an
  /// `_importdate` object.
  static func lowercaseVariant() throws -> String {
    let document = try JSONValue.parse(try SeedData.bytes(SeedData.zoo))
    guard case .object(var root) = document, case .object(var result)? = root["result"],
      case .array(let records)? = result["results"]
    else { throw ImportError.unsupportedURL("unexpected seed layout") }
    let converted = records.map { record -> JSONValue in
      guard case .object(let object) = record else { return record }
      var members = object.members.map { member in
        JSONObject.Member(
          key: member.key.replacingOccurrences(of: "\u{FEFF}", with: "").lowercased(),
          value: member.value)
      }
      let geo = object.members.first { $0.key == "A_Geo" }?.value.stringValue ?? ""
      let numbers = geo.split(whereSeparator: { " (),".contains($0) }).filter {
        Double($0) != nil
      }
      members.append(JSONObject.Member(key: "a_longitude", value: .string(String(numbers[0]))))
      members.append(JSONObject.Member(key: "a_latitude", value: .string(String(numbers[1]))))
      members.append(
        JSONObject.Member(
          key: "_importdate",
          value: .object(
            JSONObject([
              "date": .string("2022-05-09 14:47:38.000000"), "timezone_type": .number("3"),
              "timezone": .string("Asia/Taipei"),
            ]))))
      return .object(JSONObject(members))
    }
    result["results"] = .array(converted)
    root["result"] = .object(result)
    return jsonText(.object(root))
  }

  @Test func badIDsAndCoordinatesAreReported() throws {
    let parsed = try parseSource(
      .zoo,
      """
      {"result": {"results": [
        {"_id": "7", "a_name_ch": "甲", "a_name_latin": "Alpha", "a_longitude": "", "a_latitude": ""},
        {"_id": -1, "a_name_en": "Minus", "a_name_latin": "Beta"},
        {"a_name_ch": "乙", "a_pic02_url": "x.jpg", "a_name_latin": "Gamma"},
        {"_id": 4, "a_longitude": "121.5", "a_latitude": "north", "a_name_latin": "Delta"},
        {"_id": 5, "a_longitude": 121.5, "a_name_latin": "Epsilon"},
        {"_id": 6, "a_pic02_url": "b.jpg", "A_Pic01_ALT": "a", "a_summary": null, "a_cid": 12,
         "a_name_latin": "Zeta"},
        {"_id": 8, "a_name_ch": "丙"},
        {"_id": 9, "a_name_ch": "丁", "a_name_latin": "  "},
        {"_id": 10, "a_name_ch": " ", "a_name_latin": "?", "a_name_en": "Nameless"}
      ]}}
      """)
    #expect(parsed.animalRecords.map(\.sourceID) == [7, 6, 8, 9])
    #expect(
      parsed.animalRecords.map(\.id.rawValue) == [
        "zoo-alpha", "zoo-zeta", "zoo-u4e19", "zoo-u4e01",
      ])
    #expect(parsed.animalRecords[0].coordinate == nil)
    let six = parsed.animalRecords[1]
    #expect(six.pictures == [MediaLink(url: "", alternativeText: "a"), MediaLink(url: "b.jpg")])
    #expect(six.cid == "12")
    #expect(
      parsed.problems.map(\.description) == [
        "animal record 2 (name 'Minus'): field '_id': -1 — expected the record's _id, a whole number from 0",
        "animal record 3 (name '乙'): field '_id': missing — expected the record's _id, a whole number from 0",
        "animal record 4 (_id 4): field 'a_latitude': \"north\" — expected a number (or a string holding one)",
        "animal record 5 (_id 5): field 'a_latitude': missing — expected a number, since a_longitude is given",
        "animal record 9 (_id 10, name ' '): field 'a_name_ch': \" \" — expected a Latin name (a_name_latin) or a Chinese name, which identify the animal (the _id is a row number the source reuses)",
      ])
  }
}
