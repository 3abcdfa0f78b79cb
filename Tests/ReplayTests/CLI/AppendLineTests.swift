import Engine
import Events
import Foundation
import ReplayTestSupport
import Testing

@testable import replay

/// The in-place reader of `append --file` lines takes the common shape and gives what the
/// general reader gives; it declines everything else, which the general reader then takes or
/// explains.
@Suite struct AppendLineTests {
  private func quick(_ line: String) -> EventLog.StreamWrite? {
    Array(line.utf8).withUnsafeBytes { AppendCommand.parseCompactEventLine($0) }
  }

  private func general(_ line: String) throws -> EventLog.StreamWrite {
    try AppendCommand.parseGeneralEventLine(Array(line.utf8), location: "test")
  }

  @Test func everyLineOfTheSampleLogReadsTheSameBothWays() throws {
    let text = try String(contentsOfFile: RepositoryFiles.sampleLog, encoding: .utf8)
    var taken = 0
    for line in text.split(separator: "\n") {
      // The log's line as an input line: stream, type, data and meta, in that order.
      guard case .object(let object) = try JSONValue.parse(Array(line.utf8)) else {
        Issue.record("not an object")
        continue
      }
      var members: [JSONObject.Member] = []
      for key in ["stream", "type", "data", "meta", "schema"] {
        if let value = object[key] { members.append(.init(key: key, value: value)) }
      }
      let input = String(
        decoding: JSONValue.object(JSONObject(members)).compactBytes, as: UTF8.self)
      let expected = try general(input)
      if let read = quick(input) {
        #expect(read == expected, "\(input)")
        taken += 1
      }
    }
    // Escaped names or text are rare: nearly every line takes the quick way.
    #expect(taken > 100)
  }

  @Test(arguments: [
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"}}"#,
    #"{"type":"ContactFavorited","data":{"id":"1"},"stream":"contact-1","id":"6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"expectedVersion":3,"schema":1}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"meta":{"actor":"ana","reason":"VIP — ☆"}}"#,
    #"  {"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"}}  "#,
  ])
  func theCommonShapeIsTakenAndReadsAsTheGeneralReaderReadsIt(line: String) throws {
    let read = try #require(quick(line))
    #expect(read == (try general(line)))
  }

  @Test(arguments: [
    // Whitespace or an escape inside data: its bytes are not what the log stores.
    #"{"stream":"contact-1","type":"ContactFavorited","data":{ "id":"1"}}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"\u0031"}}"#,
    // Escaped names, unknown or repeated members, other kinds of value.
    #"{"stream":"contact-\u0031","type":"ContactFavorited","data":{"id":"1"}}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"extra":1}"#,
    #"{"stream":"contact-1","stream":"contact-2","type":"ContactFavorited","data":{"id":"1"}}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"meta":{"actor":1}}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"meta":{"who":"x"}}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"expectedVersion":"any"}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"schema":0}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":[1]}"#,
    #"{"stream":"contact-1","type":"ContactFavorited"}"#,
    #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"}} x"#,
    "[1]",
  ])
  func everythingElseIsLeftToTheGeneralReader(line: String) {
    #expect(quick(line) == nil)
  }

  @Test func invalidUTF8IsNeverTakenQuietly() {
    var bytes = Array(
      #"{"stream":"contact-1","type":"ContactAdded","data":{"id":"1","name":"A"#.utf8)
    bytes += [0xC3, 0x28]  // not UTF-8
    bytes += Array(#"","isFavorite":false}}"#.utf8)
    #expect(bytes.withUnsafeBytes { AppendCommand.parseCompactEventLine($0) } == nil)
    #expect(throws: (any Error).self) {
      try AppendCommand.parseEventLine(bytes, location: "test")
    }
  }
}

/// A large events file is parsed in parts, one per core, cut at line ends: the writes and the
/// problems must be those of reading it line by line, each problem naming its own line.
@Suite struct AppendFilePartsTests {
  /// The sample log's lines as `append --file` lines.
  private func inputLines() throws -> [String] {
    let text = try String(contentsOfFile: RepositoryFiles.sampleLog, encoding: .utf8)
    return try text.split(separator: "\n").map { line in
      guard case .object(let object) = try JSONValue.parse(Array(line.utf8)) else {
        throw InputError.invalid("not an object")
      }
      let members = ["stream", "type", "data", "meta", "schema"].compactMap { key in
        object[key].map { JSONObject.Member(key: key, value: $0) }
      }
      return String(decoding: JSONValue.object(JSONObject(members)).compactBytes, as: UTF8.self)
    }
  }

  @Test func partsGiveWhatReadingLineByLineGives() throws {
    let lines = try inputLines()
    var text: [String] = []
    var seed = SplitMix64(seed: TestSeed.make(fallback: 0x5041_5254))
    // Over 1 MiB (so it is cut), with blank, CRLF and bad lines throughout.
    while text.reduce(0, { $0 + $1.utf8.count + 1 }) < 3 << 19 {
      let line = lines[Int(seed.next() % UInt64(lines.count))]
      switch seed.next() % 50 {
      case 0: text.append("")
      case 1: text.append(line + "\r")
      case 2: text.append("{\"stream\":\"contact-1\",\"type\":\"ContactFavorited\"}")
      case 3: text.append("not json")
      default: text.append(line)
      }
    }
    let bytes = Array(text.joined(separator: "\n").utf8)
    let (writes, problems) = try AppendCommand.parseLines(bytes, name: "events.jsonl")
    var expectedWrites: [EventLog.StreamWrite] = []
    var expectedProblems: [String] = []
    for (index, line) in text.enumerated() {
      let content = line.hasSuffix("\r") ? String(line.dropLast()) : line
      if content.isEmpty { continue }
      do {
        expectedWrites.append(
          try AppendCommand.parseEventLine(
            Array(content.utf8), location: "events.jsonl:\(index + 1)"))
      } catch let error as any CLIError {
        expectedProblems.append(error.message)
      }
    }
    #expect(!expectedProblems.isEmpty)
    #expect(writes == expectedWrites)
    #expect(problems == expectedProblems)
    #expect(problems.allSatisfy { $0.hasPrefix("events.jsonl:") })
  }
}
