import Testing

@testable import replay

@Suite struct SpellingSuggestionTests {
  struct DistanceCase: Sendable, CustomTestStringConvertible {
    var source: String
    var target: String
    var distance: Int
    var testDescription: String { "\(source) → \(target)" }
  }

  @Test(arguments: [
    DistanceCase(source: "", target: "", distance: 0),
    DistanceCase(source: "", target: "abc", distance: 3),
    DistanceCase(source: "from", target: "from", distance: 0),
    DistanceCase(source: "form", target: "from", distance: 1),  // one swap
    DistanceCase(source: "fomr", target: "from", distance: 2),
    DistanceCase(source: "apend", target: "append", distance: 1),
    DistanceCase(source: "kitten", target: "sitting", distance: 3),
    DistanceCase(source: "ca", target: "abc", distance: 3),  // no swap of an edited pair
    DistanceCase(source: "tpyo", target: "typo", distance: 1),
  ])
  func editDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps(_ distanceCase: DistanceCase) {
    #expect(
      SpellingSuggestion.editDistance(distanceCase.source, distanceCase.target)
        == distanceCase.distance)
    #expect(
      SpellingSuggestion.editDistance(distanceCase.target, distanceCase.source)
        == distanceCase.distance)
  }

  @Test func limitGrowsWithTheLength() {
    #expect(
      (1...12).map(SpellingSuggestion.maximumDistance(forLength:)) == [
        1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3,
      ])
  }

  @Test func suggestsTheClosestCandidate() {
    let options = ["--from", "--format", "--limit"]
    #expect(SpellingSuggestion.closest(to: "--fomr", among: options) == "--from")
    #expect(SpellingSuggestion.closest(to: "--forma", among: options) == "--format")
    #expect(SpellingSuggestion.closest(to: "--limt", among: options) == "--limit")
  }

  @Test func ignoresDashesWhenComparing() {
    #expect(SpellingSuggestion.closest(to: "-limit", among: ["--limit"]) == "--limit")
    #expect(SpellingSuggestion.closest(to: "limit", among: ["--limit"]) == "--limit")
  }

  @Test func swappedLettersInAShortNameAreOneEdit() {
    #expect(SpellingSuggestion.closest(to: "--lgo", among: ["--log"]) == "--log")
  }

  @Test func tiesGoToTheEarlierCandidate() {
    #expect(SpellingSuggestion.closest(to: "cat", among: ["bat", "hat"]) == "bat")
    #expect(SpellingSuggestion.closest(to: "cat", among: ["hat", "bat"]) == "hat")
  }

  @Test(arguments: [
    ("--xyz", ["--to"]),  // swift-argument-parser would offer '--to' here.
    ("--x", ["--to"]),
    ("--verbose", ["--quiet", "--log"]),
    ("frobnicate", ["append", "read", "streams", "help"]),
    ("lxx", ["--log"]),  // two edits are too many for a three-letter name.
  ])
  func suggestsNothingForFarOffInput(_ input: String, _ candidates: [String]) {
    #expect(SpellingSuggestion.closest(to: input, among: candidates) == nil)
  }

  @Test func justWithinAndJustBeyondTheLimit() {
    // "checkpoint" has 10 letters: three edits are accepted, four are not.
    #expect(SpellingSuggestion.closest(to: "chxxxpoint", among: ["checkpoint"]) == "checkpoint")
    #expect(SpellingSuggestion.closest(to: "chxxxxoint", among: ["checkpoint"]) == nil)
    // "append" has 6 letters: two edits are accepted, three are not.
    #expect(SpellingSuggestion.closest(to: "apxxnd", among: ["append"]) == "append")
    #expect(SpellingSuggestion.closest(to: "axxxnd", among: ["append"]) == nil)
  }
}
