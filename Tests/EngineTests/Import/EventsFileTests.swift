import Events
import Foundation
import ReplayTestSupport
import Testing

@testable import Engine

/// The one decoder of `append --file` lines: its quick steps read what its general steps read,
/// and the same problem gets the same message whatever the line's whitespace.
@Suite struct EventsFileTests {
  private func decode(_ line: String) throws(EngineError) -> EventLog.StreamWrite {
    try EventsFile.decodeLine(Array(line.utf8), location: "test")
  }

  /// The message `decode` throws, or `nil` when the line is taken.
  private func problem(_ line: String) -> String? {
    do {
      _ = try decode(line)
      return nil
    } catch {
      return error.description
    }
  }

  /// The sample log's lines as `append --file` lines: stream, type, data, meta and schema, in
  /// that order, compact.
  static func sampleInputLines() throws -> [String] {
    let text = try String(contentsOfFile: RepositoryFiles.sampleLog, encoding: .utf8)
    return try text.split(separator: "\n").map { line in
      guard case .object(let object) = try JSONValue.parse(Array(line.utf8)) else {
        throw EngineError.invalidEvent(location: nil, problem: "not an object")
      }
      let members = ["stream", "type", "data", "meta", "schema"].compactMap { key in
        object[key].map { JSONObject.Member(key: key, value: $0) }
      }
      return String(decoding: JSONValue.object(JSONObject(members)).compactBytes, as: UTF8.self)
    }
  }

  /// `line` with a space after every `{`, `:` and `,` outside strings: the general steps' shape.
  static func spaced(_ line: String) -> String {
    var result = ""
    var inString = false
    var escaped = false
    for character in line {
      result.append(character)
      if inString {
        if escaped {
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == "\"" {
          inString = false
        }
      } else if character == "\"" {
        inString = true
      } else if "{:,".contains(character) {
        result.append(" ")
      }
    }
    return result
  }

  @Test func everyLineOfTheSampleLogReadsAsTheStrictReaderReadsItWhateverItsSpaces() throws {
    let lines = try Self.sampleInputLines()
    #expect(lines.count > 100)
    for line in lines {
      // The oracle: the line read whole by the strict JSON reader.
      guard case .object(let object) = try JSONValue.parse(Array(line.utf8)) else {
        Issue.record("not an object")
        continue
      }
      var metadata = EventMetadata()
      if case .object(let meta)? = object["meta"] {
        metadata.actor = meta["actor"]?.stringValue
        metadata.reason = meta["reason"]?.stringValue
        metadata.correlation = meta["correlation"]?.stringValue
        metadata.causation = meta["causation"]?.stringValue
      }
      let expected = EventLog.StreamWrite(
        stream: try #require(object["stream"]?.stringValue),
        events: [
          ProposedEvent(
            type: try #require(object["type"]?.stringValue),
            schemaVersion: Int(object["schema"]?.int64Value ?? 1),
            data: try #require(object["data"]).compactBytes, metadata: metadata)
        ])
      #expect(try decode(line) == expected, "\(line)")
      #expect(try decode(Self.spaced(line)) == expected, "\(Self.spaced(line))")
    }
  }

  @Test func escapesAndOtherOrdersReadTheSame() throws {
    let plain =
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"meta":{"actor":"é"},"expectedVersion":3,"schema":1,"id":"6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"}"#
    let expected = try decode(plain)
    for other in [
      #"{"str\u0065am":"contact-\u0031","type":"Contact\u0046avorited","data":{"id":"\u0031"},"meta":{"actor":"\u00e9"},"expectedVersion":"3","schema":1 ,"id":"6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"}"#,
      #"{"id":"6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5","schema":1,"expectedVersion":3,"meta":{"actor":"é"},"data":{"id":"1"},"type":"ContactFavorited","stream":"contact-1"}"#,
      "\t" + Self.spaced(plain) + "  ",
    ] {
      #expect(try decode(other) == expected, "\(other)")
    }
    #expect(expected.expectedVersion == .exactly(3))
    #expect(expected.events[0].metadata.actor == "é")
  }

  /// The defect this decoder fixes: a repeated key inside `data` was a JSON error with a space
  /// in the line and the payload's error without one.
  @Test(arguments: [
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1","id":"1"}}"#,
      #"{"stream":"contact-1","type":"ContactFavorited","data":{ "id":"1", "id":"1"}}"#
    ),
    (
      #"{"stream":"contact-1","type":"ContactAdded","data":{"id":"1","name":"Ann","isFavorite":false,"phone":{"work":"1","work":"2"}}}"#,
      #"{"stream": "contact-1", "type": "ContactAdded", "data": {"id": "1", "name": "Ann", "isFavorite": false, "phone": {"work": "1", "work": "2"}}}"#
    ),
    (
      #"{"stream":"contact-1","type":"ContactAdded","data":{"id":"1","name":"Zoë","name":"Zoë","isFavorite":false}}"#,
      #"{"stream":"contact-1","type":"ContactAdded","data":{"id":"1","name":"Zo\u00eb","name":"Zoë","isFavorite":false}}"#
    ),
  ])
  func aRepeatedKeyInsideDataGetsOneMessageWhateverTheWhitespace(compact: String, spaced: String) {
    let compactProblem = problem(compact)
    #expect(compactProblem != nil)
    #expect(compactProblem == problem(spaced))
    #expect(compactProblem?.contains("appears more than once") == true, "\(compactProblem ?? "")")
  }

  @Test(arguments: [
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"stream":"x"}"#,
      "not valid JSON: expected each key once in an object, found a second 'stream' at byte 66"
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"extra":1}"#,
      "unknown member 'extra' (expected 'stream', 'type', 'data', 'meta', 'id', 'expectedVersion', 'schema')"
    ),
    (
      #"{"stream":5,"type":"ContactFavorited","data":{"id":"1"}}"#,
      "'stream' must be a string, found a number"
    ),
    (#"{"type":"ContactFavorited","data":{"id":"1"}}"#, "missing 'stream'"),
    (#"{"stream":"contact-1","data":{"id":"1"}}"#, "missing 'type'"),
    (#"{"stream":"contact-1","type":"ContactFavorited"}"#, "missing 'data'"),
    ("[1]", "expected an object, found an array"),
    (
      "not json",
      "not valid JSON: expected a value (object, array, string, number, true, false or null), found 'n' at byte 0"
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"meta":{"who":"x"}}"#,
      "unknown 'meta' member 'who' (expected 'actor', 'reason', 'correlation' or 'causation')"
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"meta":{"actor":1}}"#,
      "'meta.actor' must be a string, found a number"
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"meta":{"actor":"a","actor":"b"}}"#,
      "not valid JSON: expected each key once in an object, found a second 'actor' at byte 86"
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"expectedVersion":"sometimes"}"#,
      #"'expectedVersion' must be a whole number, "no-stream" or "any", found "sometimes""#
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"schema":0}"#,
      "'schema' must be a whole number ≥ 1, found 0"
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":[1]}"#,
      "'data' must be an object, found an array"
    ),
    (
      #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"id":"nope"}"#,
      #"'id' must be a UUID string, found "nope""#
    ),
    (
      #"{"stream":"contact-2","type":"ContactFavorited","data":{"id":"1"}}"#,
      "'ContactFavorited' belongs in stream 'contact-1', not 'contact-2'; append it to 'contact-1'"
    ),
    // A syntax error anywhere is named before any other problem of the line.
    (
      #"{"extra":1,"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"}} x"#,
      "not valid JSON: expected end of input, found 'x' at byte 77"
    ),
    // Of two problems, the first in the order the members are checked.
    (
      #"{"schema":0,"extra":1,"stream":5}"#,
      "unknown member 'extra' (expected 'stream', 'type', 'data', 'meta', 'id', 'expectedVersion', 'schema')"
    ),
    (#"{"schema":0,"stream":5}"#, "'stream' must be a string, found a number"),
  ])
  func eachProblemHasItsMessage(line: String, message: String) {
    #expect(problem(line) == "test: " + message)
    // The same with spaces between tokens (offsets aside: they count the spaces).
    if !message.contains(" at byte ") {
      #expect(problem(Self.spaced(line)) == "test: " + message, "\(Self.spaced(line))")
    }
  }

  @Test func invalidUTF8IsNeverTakenQuietly() {
    for prefix in [
      #"{"stream":"contact-1","type":"ContactAdded","data":{"id":"1","name":"A"#,
      #"{"stream":"contact-1","type":"ContactAdded","data":{"id":"1","name":"A"},"meta":{"actor":"A"#,
    ] {
      var bytes = Array(prefix.utf8)
      bytes += [0xC3, 0x28]  // not UTF-8
      bytes += Array(#"","isFavorite":false}}"#.utf8)
      #expect(throws: EngineError.self) {
        try EventsFile.decodeLine(bytes, location: "test")
      }
    }
  }

  /// A large events file is read in parts, one per core, cut at line ends: the writes and the
  /// problems must be those of reading it line by line, each problem naming its own line.
  @Test func partsGiveWhatReadingLineByLineGives() throws {
    let lines = try Self.sampleInputLines()
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
      case 4: text.append(Self.spaced(line))
      default: text.append(line)
      }
    }
    let bytes = Array(text.joined(separator: "\n").utf8)
    let (writes, problems) = EventsFile.decode(bytes, name: "events.jsonl")
    var expectedWrites: [EventLog.StreamWrite] = []
    var expectedProblems: [EngineError] = []
    for (index, line) in text.enumerated() {
      let content = line.hasSuffix("\r") ? String(line.dropLast()) : line
      if content.isEmpty { continue }
      do {
        expectedWrites.append(
          try EventsFile.decodeLine(Array(content.utf8), location: "events.jsonl:\(index + 1)"))
      } catch {
        expectedProblems.append(error)
      }
    }
    #expect(!expectedProblems.isEmpty)
    #expect(writes == expectedWrites)
    #expect(problems == expectedProblems)
    #expect(problems.allSatisfy { $0.description.hasPrefix("events.jsonl:") })
  }
}
