import Events
import Foundation
import Testing

@testable import Engine

/// The one envelope decoder (`LogLineCodec.decode`) against expected values: what the writer
/// encodes reads back the same, other layouts the format allows read the same fields, and every
/// line the format forbids is refused, by the decoder and by both readers built on it.
@Suite struct LogLineCodecTests {
  /// The fields of a decoded line, for comparing.
  struct Fields: Equatable {
    var sequence: Int64
    var id: EventID
    var stream: String
    var version: Int64
    var type: String
    var schemaVersion: Int
    var timestamp: Timestamp
    var batch: ClosedRange<Int64>?
    var metadata: EventMetadata
    var data: [UInt8]

    init(_ line: EventLine) {
      sequence = line.sequence
      id = line.id
      stream = line.stream
      version = line.version
      type = line.type
      schemaVersion = line.schemaVersion
      timestamp = line.timestamp
      batch = line.batch
      metadata = line.metadata()
      data = Array(line.data)
    }

    init(_ event: RecordedEvent) {
      sequence = event.sequence
      id = event.id
      stream = event.stream
      version = event.version
      type = event.type
      schemaVersion = event.schemaVersion
      timestamp = event.timestamp
      batch = event.batch
      metadata = event.metadata
      data = event.data
    }
  }

  /// `body` with its checksum member appended (no `\n`).
  static func line(_ body: String) -> [UInt8] {
    var bytes = Array(body.utf8)
    let crc = CRC32C.checksum(of: bytes)
    LogLineCodec.append(",\"crc\":\"", to: &bytes)
    LogLineCodec.appendHex(crc, to: &bytes)
    LogLineCodec.append("\"}", to: &bytes)
    return bytes
  }

  /// What the decoder makes of the line `bytes` (without its `\n`).
  static func decode(_ bytes: [UInt8]) -> Result<Fields, LogLineCodec.Problem> {
    bytes.withUnsafeBufferPointer { buffer in
      Result { () throws(LogLineCodec.Problem) -> Fields in
        Fields(
          try LogLineCodec.decode(
            buffer.baseAddress.unsafelyUnwrapped, length: buffer.count, lineNumber: 1, offset: 0))
      }
    }
  }

  static let id = "2e4deec3-25f6-89d6-8328-58449a75b630"
  static let prefix = #"{"seq":1,"id":"2e4deec3-25f6-89d6-8328-58449a75b630","#
  static let at = #""at":"2024-01-01T00:00:00.000Z""#
  static let envelope =
    prefix + #""stream":"contact-1","version":2,"type":"ContactFavorited","schema":1,"# + at

  static func expected(
    batch: ClosedRange<Int64>? = nil, metadata: EventMetadata = EventMetadata(),
    data: String = #"{"id":"1"}"#
  ) -> Fields {
    Fields(
      RecordedEvent(
        sequence: 1, id: EventID(id) ?? EventID(high: 0, low: 0),
        stream: "contact-1", version: 2, type: "ContactFavorited", schemaVersion: 1,
        timestamp: Timestamp(millisecondsSince1970: 1_704_067_200_000), batch: batch,
        metadata: metadata, data: Array(data.utf8)))
  }

  @Test func writerLayoutReadsAsExpected() throws {
    let plain = try Self.decode(Self.line(Self.envelope + #","data":{"id":"1"}"#)).get()
    #expect(plain == Self.expected())
    let full = try Self.decode(
      Self.line(
        Self.envelope
          + #","batch":[1,3],"meta":{"actor":"ana","reason":"met \"at\" the expo","correlation":"c","causation":"d"},"data":{"id":"1"}"#
      )
    ).get()
    #expect(
      full
        == Self.expected(
          batch: 1...3,
          metadata: EventMetadata(
            actor: "ana", reason: "met \"at\" the expo", correlation: "c", causation: "d")))
  }

  /// Another tool may order members differently and put whitespace between tokens.
  @Test(arguments: [
    #"{"data":{"id":"1"},"at":"2024-01-01T00:00:00.000Z","schema":1,"type":"ContactFavorited","version":2,"stream":"contact-1","id":"2e4deec3-25f6-89d6-8328-58449a75b630","seq":1}"#
      .dropLast().description,
    #" { "seq" : 1 , "id" : "2e4deec3-25f6-89d6-8328-58449a75b630" , "stream" : "contact-1" , "version" : 2 , "type" : "ContactFavorited" , "schema" : 1 , "at" : "2024-01-01T00:00:00.000Z" , "meta" : { "actor" : "ana" } , "data" : { "id" : "1" } "#,
    #"{"seq":1,"id":"2e4deec3-25f6-89d6-8328-58449a75b630","stream":"contact-\u0031","version":2,"type":"ContactFavorited","at":"2024-01-01T00:00:00.000Z","data":{"id":"1"},"meta":{"actor":"ana"}"#,
  ])
  func otherLayoutsReadTheSameFields(_ body: String) throws {
    let fields = try Self.decode(Self.line(body)).get()
    #expect(fields.sequence == 1)
    #expect(fields.id.description == Self.id)
    #expect(fields.stream == "contact-1")
    #expect(fields.version == 2)
    #expect(fields.type == "ContactFavorited")
    #expect(fields.schemaVersion == 1)
    #expect(fields.timestamp == Timestamp(millisecondsSince1970: 1_704_067_200_000))
    #expect(fields.metadata.actor == (body.contains("actor") ? "ana" : nil))
    #expect(String(decoding: fields.data, as: UTF8.self).filter { $0 != " " } == #"{"id":"1"}"#)
  }

  /// The decoder's memory of the last `at` starts as a valid `at` (24 zero bytes, which it once
  /// started from, made a line with a NUL-filled `at` pass).
  @Test func theMemoOfTheLastAtStartsFromAValidOne() {
    let text = Array("1970-01-01T00:00:00.000Z".utf8)
    let words = text.withUnsafeBytes {
      (
        $0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
        $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
      )
    }
    #expect(words == LogLineCodec.Memo.epoch)
    #expect(
      text.withUnsafeBufferPointer { Timestamp.parseLogForm($0) }
        == Timestamp(millisecondsSince1970: 0))
  }

  /// Lines the format forbids, each with the phrase its error must hold.
  static let forbidden: [(String, String)] = [
    (
      envelope + #","meta":{"actor":"a","mood":"ok"},"data":{"id":"1"}"#,
      "unknown 'meta' member 'mood'"
    ),
    (envelope + #","meta":{"actor":1},"data":{"id":"1"}"#, "'actor' is not a string"),
    (envelope + #","meta":{"actor":null},"data":{"id":"1"}"#, "'actor' is not a string"),
    (envelope + #","meta":{"actor":"a","actor":"b"},"data":{"id":"1"}"#, "'actor' appears twice"),
    (envelope + #","meta":[],"data":{"id":"1"}"#, "'{' to start an object"),
    (envelope + #","meta":"ana","data":{"id":"1"}"#, "'{' to start an object"),
    (
      prefix
        + #""stream":"contact-1","version":2,"type":"T","schema":1,"at":"2026-02-30T25:61:00.000Z","data":{}"#,
      "'at'"
    ),
    (
      prefix
        + #""stream":"contact-1","version":2,"type":"T","schema":1,"at":"2026-02-30T10:00:00.000Z","data":{}"#,
      "'at'"
    ),
    (
      prefix
        + #""stream":"contact-1","version":2,"type":"T","schema":1,"at":"2026-01-30 10:00:00.000Z","data":{}"#,
      "'at'"
    ),
    (
      prefix
        + #""stream":"contact-1","version":2,"type":"T","schema":1,"at":"2026-01-30T10:00:00Z","data":{}"#,
      "'at'"
    ),
    // 24 NUL bytes: what the decoder's memory of the last `at` holds before any line.
    (
      prefix + #""stream":"contact-1","version":2,"type":"T","schema":1,"at":""#
        + String(repeating: "\u{0}", count: 24) + #"","data":{}"#,
      "'at'"
    ),
    (
      #"{"seq":1,"id":"2e4deec3-25f6-89d6-8328-58449a75b63g","stream":"s","version":2,"type":"T","#
        + at
        + #","data":{}"#, "'id'"
    ),
    (
      #"{"seq":1,"id":"2E4DEEC3-25F6-89D6-8328-58449A75B630","stream":"s","version":2,"type":"T","#
        + at
        + #","data":{}"#, "'id'"
    ),
    (
      #"{"seq":1,"id":"2e4deec3-25f6-89d6-8328-58449a75b6300","stream":"s","version":2,"type":"T","#
        + at + #","data":{}"#, "'id'"
    ),
    (
      #"{"seq":1,"id":"2e4deec3025f6-89d6-8328-58449a75b630","stream":"s","version":2,"type":"T","#
        + at
        + #","data":{}"#, "'id'"
    ),
    (
      #"{"seq":1,"id":"not a uuid","stream":"s","version":2,"type":"T","# + at + #","data":{}"#,
      "'id'"
    ),
    (envelope + #","data":{"id":"1"},"meta":{"actor":1}"#, "'actor' is not a string"),
    (envelope + #","data":{"id":"1"},"x":1"#, "unknown envelope member 'x'"),
    (envelope + #","data":{"id":"1"}}"#, "',' between members"),
    (envelope + #","data":{"id":"1""#, "'data'"),
    (envelope + #","data":{"id":}"#, "'data'"),
    (envelope + #","data":[1]"#, "'data' is not an object"),
    (envelope + #","seq":2,"data":{}"#, "'seq' appears twice"),
    (prefix + #""stream":"s","version":02,"type":"T","# + at + #","data":{}"#, "leading zeros"),
    (prefix + #""stream":"s","version":-2,"type":"T","# + at + #","data":{}"#, "'version' -2"),
    (prefix + #""stream":"s","version":0,"type":"T","# + at + #","data":{}"#, "'version' 0"),
    (prefix + #""stream":"s","version":2.5,"type":"T","# + at + #","data":{}"#, "no fraction"),
    (
      prefix + #""stream":"s","version":2,"type":"T","schema":0,"# + at + #","data":{}"#,
      "'schema' 0"
    ),
    (prefix + #""stream":"","version":2,"type":"T","# + at + #","data":{}"#, "'stream'"),
    (prefix + #""stream":" s","version":2,"type":"T","# + at + #","data":{}"#, "'stream'"),
    (prefix + #""stream":"s\u0007","version":2,"type":"T","# + at + #","data":{}"#, "'stream'"),
    (prefix + #""stream":"s","version":2,"type":"","# + at + #","data":{}"#, "'type'"),
    (prefix + #""stream":"s","version":2,"type":"9T","# + at + #","data":{}"#, "'type'"),
    (prefix + #""stream":"s","version":2,"type":"T-1","# + at + #","data":{}"#, "'type'"),
    (envelope + #","batch":[2,3],"data":{}"#, "does not contain"),
    (envelope + #","batch":[3,1],"data":{}"#, "runs backwards"),
    (envelope + #","batch":[1],"data":{}"#, "'batch'"),
    (envelope + #","batch":[0,1],"data":{}"#, "'batch' 0"),
    (prefix + #""stream":"s","type":"T","# + at + #","data":{}"#, "lacks 'version'"),
    (envelope, "lacks 'data'"),
  ]

  @Test(arguments: forbidden)
  func forbiddenLinesAreRefused(_ body: String, _ phrase: String) {
    switch Self.decode(Self.line(body)) {
    case .success(let fields): Issue.record("accepted \(body) as \(fields)")
    case .failure(let problem):
      #expect(problem.message.contains(phrase), "\(problem.message) lacks \(phrase)")
    }
  }

  /// Both readers (the one on the caller's thread and the pipelined one) stop at a forbidden
  /// line with its line number; none hands it out.
  @Test(arguments: forbidden.map(\.0), [false, true])
  func readersRefuseForbiddenLines(_ body: String, pipelined: Bool) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      // A valid line after the bad one, so that the bad one is not taken for a torn last line.
      var bytes = Self.line(body) + [0x0A]
      bytes +=
        Self.line(
          #"{"seq":2,"id":"2e4deec3-25f6-89d6-8328-58449a75b631","stream":"contact-1","version":3,"type":"ContactFavorited","schema":1,"#
            + Self.at + #","data":{"id":"1"}"#) + [0x0A]
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      var handedOut = 0
      var reader = LogReader(path: path)
      if pipelined { reader.pipelineThreshold = 0 }
      #expect {
        try reader.forEachEvent { _ in
          handedOut += 1
          return true
        }
      } throws: { error in
        guard case EngineError.corruptLine(_, let line, _, _) = error else { return false }
        return line == 1
      }
      #expect(handedOut == 0)
    }
  }

  /// decode(encode(x)) == x over seeded random envelopes: escapes and non-ASCII in names and
  /// `meta`, large numbers, batches.
  @Test func decodeReadsBackWhatEncodeWrites() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    print("LogLineCodecTests.decodeReadsBackWhatEncodeWrites seed \(seed)")
    var random = SeededGenerator(seed: seed)
    let pieces = ["a", "é", "\"", "\\", "\t", "漢", "😀", "-", " ", "1", "\u{7F}"]
    func text(_ count: Int) -> String {
      (0..<count).map { _ in pieces.randomElement(using: &random) ?? "a" }.joined()
    }
    for _ in 0..<500 {
      let sequence = Int64.random(in: 1...Int64.max, using: &random)
      let batch: ClosedRange<Int64>? =
        Bool.random(using: &random) ? max(1, sequence - 5)...sequence : nil
      var metadata = EventMetadata()
      if Bool.random(using: &random) {
        metadata.actor = text(Int.random(in: 0...5, using: &random))
      }
      if Bool.random(using: &random) {
        metadata.reason = text(Int.random(in: 0...9, using: &random))
      }
      if Bool.random(using: &random) { metadata.correlation = "c" }
      if Bool.random(using: &random) { metadata.causation = text(2) }
      let stream = "s" + text(Int.random(in: 0...10, using: &random)) + "x"
      let event = RecordedEvent(
        sequence: sequence, id: EventID(high: random.next(), low: random.next()),
        stream: stream, version: Int64.random(in: 1...Int64.max, using: &random),
        type: ["T", "ContactFavorited", "billing.Invoice_Sent2"].randomElement(using: &random)
          ?? "T",
        schemaVersion: Int.random(in: 1...1000, using: &random),
        timestamp: Timestamp(
          millisecondsSince1970: Int64.random(in: 0...4_102_444_800_000, using: &random)),
        batch: batch, metadata: metadata,
        data: Array(#"{"id":"1","t":[1,2.5,"\u0041",null,true,{}]}"#.utf8))
      let bytes = Array(event.logLine.dropLast())
      // Stream names with a control character or a space at either end are not written by the
      // engine; the writer checks them before it encodes.
      let expected: Result<Fields, LogLineCodec.Problem>? =
        EnvelopeRules.problem(withStreamName: stream) == nil ? .success(Fields(event)) : nil
      let decoded = Self.decode(bytes)
      if let expected {
        #expect(try decoded.get() == expected.get(), "seed \(seed)")
      } else {
        #expect((try? decoded.get()) == nil, "seed \(seed): \(stream.debugDescription)")
      }
    }
  }

  /// The line encoder's quoting (`LineBytes.quoted`, a word at a time) writes what the JSON
  /// writer's escaping writes, for each byte that needs an escape (and a few that do not) at
  /// every position of texts from 1 to 24 bytes, around a multi-byte character.
  @Test func theLineEncoderQuotesAsTheJSONWriterEscapes() {
    let special: [UInt8] = Array(0..<0x20) + [0x22, 0x5C, 0x7F, 0x2F, 0x41]
    for length in 1...24 {
      for position in 0..<length {
        for byte in special {
          var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
          bytes[position] = byte
          var text = String(decoding: bytes, as: UTF8.self)
          if length > 3 { text += "漢" }
          var expected: [UInt8] = [0x22]
          var copy = text
          copy.withUTF8 { JSONWriter.appendEscaped($0, to: &expected) }
          expected.append(0x22)
          let written = [UInt8](unsafeUninitializedCapacity: 6 * text.utf8.count + 2) {
            buffer, count in
            guard let base = buffer.baseAddress else { return }
            var line = LineBytes(cursor: base)
            line.quoted(text)
            count = line.cursor - base
          }
          #expect(written == expected, "byte \(byte) at \(position) of \(length)")
        }
      }
    }
  }

  @Test func stringsOfUTF8AndEscapesAreReadAsTheFormatSays() throws {
    let fields = try Self.decode(
      Self.line(
        Self.prefix
          + #""stream":"state-Nuevo León","version":2,"type":"ContactFavorited","schema":1,"#
          + Self.at + #","meta":{"reason":"\u00e9\n"},"data":{"id":"1"}"#)
    ).get()
    #expect(fields.stream == "state-Nuevo León")
    #expect(fields.metadata.reason == "é\n")
  }
}
