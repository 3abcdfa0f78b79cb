import Foundation
import Testing

/// An imported animal is its name at its place: the source's `_id`, a row number the open data
/// reuses for other animals between versions, never decides which animal a record is.
@Suite struct ZooIdentityTests {
  private func page(_ records: [(id: Int, chinese: String, latin: String)]) -> String {
    let rows = records.map {
      #"{"_id": \#($0.id), "a_name_ch": "\#($0.chinese)", "a_name_latin": "\#($0.latin)"}"#
    }
    return #"{"result": {"results": ["# + rows.joined(separator: ",") + "]}}"
  }

  private func animals(_ log: String) throws -> [String] {
    let state = try ReplayProcess.run(["state", "animals", "--json", "--log", log])
    let object = try JSONSerialization.jsonObject(with: Data(state.output.utf8))
    let catalogue = (object as? [String: Any])?["animals"] as? [String: Any]
    let list = catalogue?["animals"] as? [[String: Any]] ?? []
    return list.compactMap { row in
      (row["id"] as? String).map { "\($0)=\(row["name"] as? String ?? "")" }
    }
  }

  @Test func twoVersionsOfTheSourceThatRenumberTheirRowsKeepEachAnimal() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/zoo.jsonl"
      let older = directory + "/older.json"
      let current = directory + "/current.json"
      // The older page numbers the panda 8 and the penguin 9; the current one swaps them.
      try page([(8, "大貓熊", "Ailuropoda melanoleuca"), (9, "國王企鵝", "Aptenodytes patagonicus")])
        .write(toFile: older, atomically: true, encoding: .utf8)
      try page([(8, "國王企鵝", "Aptenodytes  patagonicus"), (9, "大貓熊", "ailuropoda melanoleuca")])
        .write(toFile: current, atomically: true, encoding: .utf8)
      #expect(try ReplayProcess.run(["import", "zoo", older, "--log", log]).status == 0)
      let before = try animals(log)
      #expect(
        before == [
          "zoo-ailuropoda-melanoleuca=大貓熊", "zoo-aptenodytes-patagonicus=國王企鵝",
        ])
      // The current page: each animal is still itself (only its source attributes changed).
      let second = try ReplayProcess.run(["import", "zoo", current, "--log", log])
      #expect(second.status == 0, "\(second.error)")
      #expect(Set(try animals(log)) == Set(before))
      // The same page again appends nothing.
      let again = try ReplayProcess.run(["import", "zoo", current, "--log", log])
      #expect(again.output.hasPrefix("nothing to import"), "\(again.output)")
    }
  }

  @Test func aRecordWithoutALatinNameIsItsChineseName() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/zoo.jsonl"
      let source = directory + "/page.json"
      try page([(1, "甲", "Alpha"), (2, "臺灣黑熊", " ")]).write(
        toFile: source, atomically: true, encoding: .utf8)
      let result = try ReplayProcess.run(["import", "zoo", source, "--log", log])
      #expect(result.status == 0, "\(result.error)")
      #expect(try animals(log) == ["zoo-alpha=甲", "zoo-u81fa-u7063-u9ed1-u718a=臺灣黑熊"])
    }
  }

  @Test func aRecordWithoutAnyNameIsRejectedNamingTheField() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/zoo.jsonl"
      let source = directory + "/page.json"
      try page([(1, "甲", "Alpha"), (2, "", " ")]).write(
        toFile: source, atomically: true, encoding: .utf8)
      let result = try ReplayProcess.run(["import", "zoo", source, "--log", log])
      #expect(result.status == 65)
      #expect(result.error.contains("a_name_ch"), "\(result.error)")
      #expect(result.error.contains("Latin name"), "\(result.error)")
      // Nothing was written: an import is all or nothing.
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }

  @Test func recordsWithOneNameAreEachAnAnimalInSourceOrder() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/zoo.jsonl"
      let source = directory + "/page.json"
      // The current key style: the same species in two enclosures, and listed twice in one.
      let rows = [
        (1, "121.5903", "24.9946"), (2, "121.5867", "24.9961"), (3, "121.5903", "24.9946"),
      ].map { row in
        #"{"_id": \#(row.0), "a_name_ch": "馬來長吻鱷", "a_name_latin": "Tomistoma schlegelii", "#
          + #""a_longitude": "\#(row.1)", "a_latitude": "\#(row.2)"}"#
      }
      try (#"{"result": {"results": ["# + rows.joined(separator: ",") + "]}}").write(
        toFile: source, atomically: true, encoding: .utf8)
      let result = try ReplayProcess.run(["import", "zoo", source, "--log", log])
      #expect(result.status == 0, "\(result.error)")
      #expect(!result.error.contains("left out"), "\(result.error)")
      #expect(
        try animals(log) == [
          "zoo-tomistoma-schlegelii-at-24-9946n-121-5903e=馬來長吻鱷",
          "zoo-tomistoma-schlegelii-at-24-9961n-121-5867e=馬來長吻鱷",
          "zoo-tomistoma-schlegelii-at-24-9946n-121-5903e-2=馬來長吻鱷",
        ])
      let again = try ReplayProcess.run(["import", "zoo", source, "--log", log])
      #expect(again.output.hasPrefix("nothing to import"), "\(again.output)")
    }
  }
}
