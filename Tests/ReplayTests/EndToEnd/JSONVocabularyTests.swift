import Foundation
import Testing

/// One JSON vocabulary across commands (docs/READMODELS.md, "JSON vocabulary"): a distance is
/// `distanceInMiles`, a boolean or a number is a JSON boolean or number, and a problem that is
/// not on a line has `"line": null`.
@Suite struct JSONVocabularyTests {
  private static let sample = SampleLogTests.sample

  @Test func nearestNamesDistancesLikeTheLocationsModel() throws {
    let nearest = try ReplayProcess.run([
      "nearest", "echo", "--k", "1", "--log", Self.sample, "--json",
    ])
    #expect(
      nearest.output
        == #"{"seq":147,"location":{"id":"2abca2a7-d768-4db2-95e2-09002df94362","name":"Echo"},"#
        + #""nearest":[{"id":"2298eb8d-255e-4198-a20c-cc9c2eac0cf7","name":"Alpha","distanceInMiles":340.76}]}"#
        + "\n")
    let state = try ReplayProcess.run(["state", "locations", "--log", Self.sample, "--json"])
    #expect(state.output.contains(#""distanceInMiles":340.76"#))
    #expect(!state.output.contains(#""miles""#))
  }

  @Test func entryFieldsAreTypedBooleansAndNumbers() throws {
    let contact = try ReplayProcess.run([
      "state", "contacts", "--id", "13", "--log", Self.sample, "--json",
    ])
    #expect(contact.output.contains(#"{"name":"isFavorite","value":false}"#))
    let location = try ReplayProcess.run([
      "state", "locations", "--id", "2298eb8d-255e-4198-a20c-cc9c2eac0cf7", "--log", Self.sample,
      "--json",
    ])
    #expect(location.output.contains(#"{"name":"latitude","value":-"#), "\(location.output)")
    #expect(!location.output.contains(#""latitude","value":""#))
  }

  @Test func verifyDescribesADigestAsDataAndItsProblemHasNoLine() throws {
    let wrong = String(repeating: "ab", count: 32)
    let mismatch = try ReplayProcess.run([
      "verify", "--log", Self.sample, "--json", "--digest", "10:\(wrong)",
    ])
    #expect(mismatch.status == 74)
    let found = "cd7dc0a903a983be8b90c85f94f5ccbcd27c4d8cb55ecc5fca661ed936ddd6ce"
    #expect(
      mismatch.output
        == #"{"valid":false,"events":147,"streams":68,"lastSeq":147,"bytes":118479,"#
        + #""problems":[{"line":null,"offset":null,"message":"lines 1...10 do not match the digest: "#
        + #"expected \#(wrong), found \#(found); some of those lines changed"}],"#
        + #""digest":{"seq":10,"expected":"\#(wrong)","found":"\#(found)","matches":false},"#
        + #""uncommittedTail":null,"checkpointsChecked":0,"quarantined":[]}"# + "\n")
    let match = try ReplayProcess.run([
      "verify", "--log", Self.sample, "--json", "--digest", "10:\(found)",
    ])
    #expect(match.status == 0)
    #expect(
      match.output.hasSuffix(
        #""problems":[],"digest":{"seq":10,"expected":"\#(found)","found":"\#(found)","matches":true},"uncommittedTail":null,"#
          + #""checkpointsChecked":0,"quarantined":[]}"#
          + "\n"))
    let plain = try ReplayProcess.run(["verify", "--log", Self.sample, "--json"])
    #expect(
      plain.output.hasSuffix(
        #""problems":[],"digest":null,"uncommittedTail":null,"checkpointsChecked":0,"#
          + #""quarantined":[]}"# + "\n"))
  }
}
