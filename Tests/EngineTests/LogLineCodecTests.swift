import Events
import Testing

@testable import Engine

/// The envelope's plainest-layout reader (`decodeWriterLayout`) against the fast reader it sits
/// in front of (`decodeFast`): whatever it accepts, `decodeFast` must accept with the same fields.
@Suite struct LogLineCodecTests {
  /// The fields of a decoded line, for comparing.
  struct Fields: Equatable {
    var sequence: Int64
    var version: Int64
    var schemaVersion: Int
    var batch: ClosedRange<Int64>?
    var idOffset: Int
    var timestampOffset: Int
    var stream: JSONStringSlice
    var type: JSONStringSlice
    var metaRange: Range<Int>?
    var dataRange: Range<Int>

    init(_ line: EventLine) {
      sequence = line.sequence
      version = line.version
      schemaVersion = line.schemaVersion
      batch = line.batch
      idOffset = line.idOffset
      timestampOffset = line.timestampOffset
      stream = line.streamSlice
      type = line.typeSlice
      metaRange = line.metaRange
      dataRange = line.dataRange
    }
  }

  /// The line with `body` and its checksum member, and what both readers make of it.
  static func read(_ body: String) -> (writerLayout: Fields?, fast: Fields?, decoded: Fields?) {
    var bytes = Array(body.utf8)
    let crc = CRC32C.checksum(of: bytes)
    LogLineCodec.append(",\"crc\":\"", to: &bytes)
    LogLineCodec.appendHex(crc, to: &bytes)
    LogLineCodec.append("\"}", to: &bytes)
    return bytes.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress.unsafelyUnwrapped
      let bodyLength = buffer.count - LogLineCodec.suffixLength
      var plain = EventLine(base: base, length: buffer.count, lineNumber: 1, offset: 0)
      var fast = plain
      let plainAccepted = LogLineCodec.decodeWriterLayout(&plain, bodyLength: bodyLength)
      let fastAccepted = LogLineCodec.decodeFast(&fast, bodyLength: bodyLength)
      let decoded = try? LogLineCodec.decode(base, length: buffer.count, lineNumber: 1, offset: 0)
      return (
        plainAccepted ? Fields(plain) : nil, fastAccepted ? Fields(fast) : nil,
        decoded.map(Fields.init)
      )
    }
  }

  static let prefix = #"{"seq":7,"id":"2e4deec3-25f6-89d6-8328-58449a75b630","#
  static let at = #""at":"2024-01-01T00:00:00.000Z""#

  @Test(arguments: [
    prefix + #""stream":"contact-1","version":2,"type":"ContactFavorited","schema":1,"# + at
      + #","data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2,"type":"ContactFavorited","schema":1,"# + at
      + #","batch":[1,10000],"meta":{"actor":"ana","reason":"met at the expo"},"data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2,"type":"ContactFavorited","schema":1,"# + at
      + #","meta":{},"data":{}"#,
    prefix + #""stream":"state-New York","version":123456789012345678,"type":"T","schema":3,"#
      + at + #","data":{"x":[1,{"y":"}"}]}"#,
  ])
  func writerLayoutMatchesTheFastReader(_ body: String) {
    let result = Self.read(body)
    #expect(result.writerLayout != nil)
    #expect(result.writerLayout == result.fast)
    #expect(result.decoded == result.fast)
  }

  @Test(arguments: [
    // Escapes, signs, leading zeros, long numbers, odd `meta`: the next reader decides.
    prefix + #""stream":"contact-\u0031","version":2,"type":"ContactFavorited","schema":1,"# + at
      + #","data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":02,"type":"ContactFavorited","schema":1,"# + at
      + #","data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":-2,"type":"ContactFavorited","schema":1,"# + at
      + #","data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":1234567890123456789,"type":"T","schema":1,"# + at
      + #","data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":0,"type":"T","schema":1,"# + at
      + #","data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2.5,"type":"T","schema":1,"# + at
      + #","data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2,"type":"T","schema":1,"# + at
      + #","meta":{"actor":1},"data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2,"type":"T","schema":1,"# + at
      + #","meta":{"actor":"a\"b"},"data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2,"type":"T","schema":1,"# + at
      + #","meta":{"actor" : "a"},"data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2,"type":"T","schema":1,"# + at
      + #","batch":[8,9],"data":{"id":"1"}"#,
    prefix + #""stream":"contact-1","version":2,"type":"T","schema":1,"# + at
      + #","batch":[1,3],"data":{"id":"1"}"#,
    prefix + #""stream":"","version":2,"type":"T","schema":1,"# + at + #","data":{"id":"1"}"#,
    prefix + #""stream":"s","version":2,"type":"","schema":1,"# + at + #","data":{"id":"1"}"#,
    prefix + #""stream":"s","version":2,"type":"T","schema":1,"# + at + #","data":[1]"#,
    prefix + #""stream":"s","version":2,"type":"T","schema":1,"# + at + #","data":{"a":1} "#,
    prefix + #""version":2,"stream":"s","type":"T","schema":1,"# + at + #","data":{"id":"1"}"#,
    prefix + "\"stream\":\"a\tb\",\"version\":2,\"type\":\"T\",\"schema\":1," + at
      + #","data":{"id":"1"}"#,
    #"{"seq":7,"id":"2e4deec3-25f6-89d6-8328-58449a75b63","stream":"s","version":2,"type":"T","schema":1,"#
      + at + #","data":{"id":"1"}"#,
  ])
  func writerLayoutNeverDisagreesWithTheFastReader(_ body: String) {
    let result = Self.read(body)
    if let accepted = result.writerLayout {
      #expect(accepted == result.fast)
    }
  }

  @Test func writerLayoutDeclinesWhatItDoesNotKnow() {
    let escaped = Self.read(
      Self.prefix + #""stream":"contact-\u0031","version":2,"type":"T","schema":1,"# + Self.at
        + #","data":{"id":"1"}"#)
    #expect(escaped.writerLayout == nil)
    #expect(escaped.fast != nil)
    let numericMeta = Self.read(
      Self.prefix + #""stream":"s","version":2,"type":"T","schema":1,"# + Self.at
        + #","meta":{"actor":1},"data":{"id":"1"}"#)
    #expect(numericMeta.writerLayout == nil)
    #expect(numericMeta.fast != nil)
  }
}
