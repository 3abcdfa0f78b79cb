import Foundation
import Testing

/// Booleans written by the built binary, in whichever configuration the tests were built in.
///
/// Release builds once wrote every JSON boolean inverted into the log (the optimizer's outlined
/// array literals, docs/COMPILER-HAZARDS.md), while debug builds were right and every test ran
/// debug. These run the binary next to the test bundle, so `swift test -c release` checks the
/// release binary.
@Suite struct BooleanRoundTripTests {
  @Test(arguments: [true, false])
  func anAppendedBooleanIsStoredAsGiven(value: Bool) throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let line =
        #"{"stream":"contact-3","type":"ContactAdded","data":{"id":"3","name":"C","isFavorite":\#(value)}}"#
      let result = try ReplayProcess.run(
        ["append", "--file", "-", "--log", log], input: line + "\n", environment: reproducible)
      #expect(result.status == 0, "\(result.error)")
      let stored = String(decoding: fileBytes(log), as: UTF8.self)
      // Sealed (schema 2): the flag stays in clear, before the key.
      #expect(stored.contains(#""isFavorite":\#(value),"key":"#))
      #expect(!stored.contains(#""isFavorite":\#(!value)"#))

      let state = try ReplayProcess.run(["state", "contacts", "--json", "--log", log])
      #expect(state.status == 0)
      #expect(state.output.contains(#""isFavorite":\#(value)"#))
      let section = value ? "Favorite Contacts" : "Other Contacts"
      #expect(state.output.contains(#"{"title":"\#(section)","contacts":[{"id":"3""#))
    }
  }

  @Test func importedFavouritesMatchTheSourceAndReimportingAppendsNothing() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let source = ImportSeeds.path("contacts-v3.json")
      let favourites = try Self.favouriteIDs(inSource: source)
      #expect(favourites == ["4", "5", "6", "16"])

      let first = try ReplayProcess.run(
        ["import", "contacts", source, "--log", log], environment: reproducible)
      #expect(first.status == 0, "\(first.error)")
      let stored = String(decoding: fileBytes(log), as: UTF8.self)
      #expect(stored.components(separatedBy: #""isFavorite":true"#).count - 1 == favourites.count)

      let state = try ReplayProcess.run(["state", "contacts", "--json", "--log", log])
      #expect(state.status == 0)
      #expect(try Self.favouriteIDs(inState: state.output) == favourites)

      let before = fileBytes(log)
      let second = try ReplayProcess.run(
        ["import", "contacts", source, "--log", log], environment: reproducible)
      #expect(second.status == 0, "\(second.error)")
      #expect(fileBytes(log) == before, "re-importing an unchanged source appended events")
    }
  }

  /// The ids of the contacts whose `isFavorite` is true in a contacts-v3.json file.
  static func favouriteIDs(inSource path: String) throws -> Set<String> {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let contacts = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    return Set(
      contacts.compactMap { contact in
        (contact["isFavorite"] as? Bool) == true ? contact["id"] as? String : nil
      })
  }

  /// The ids in the "Favorite Contacts" section of `state contacts --json`, each checked to say
  /// `isFavorite: true`.
  static func favouriteIDs(inState json: String) throws -> Set<String> {
    let root = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let model = try #require(root["contacts"] as? [String: Any])
    let sections = try #require(model["sections"] as? [[String: Any]])
    var ids: Set<String> = []
    for section in sections {
      let isFavouriteSection = section["title"] as? String == "Favorite Contacts"
      for contact in try #require(section["contacts"] as? [[String: Any]]) {
        #expect(contact["isFavorite"] as? Bool == isFavouriteSection)
        if isFavouriteSection, let id = contact["id"] as? String { ids.insert(id) }
      }
    }
    return ids
  }
}
