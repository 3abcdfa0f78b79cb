@_spi(Fuzzing) import Engine
@_spi(Fuzzing) import Events
import FuzzSupport

/// The log line decoder (`LogLineCodec.decode`, envelope and checksum, reached through
/// `FuzzingLineCodec`), the entry point every reader uses for each line.
///
/// Input: one line. A trailing `,"crc":"…"}` is replaced by the correct checksum of what
/// precedes it, so mutations reach the envelope instead of dying at the checksum.
/// Checks, for every line the decoder accepts:
/// - its event re-encoded by the writer decodes to the same event (the writer's layout and the
///   input's layout take different paths through the decoder);
/// - the same members in reverse order (the general path) decode to the same event;
/// - reading its `meta` and payload does not crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLine(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  var body = Array(UnsafeBufferPointer(start: start, count: count))
  if body.count >= FuzzingLineCodec.checksumSuffixLength,
    body[(body.count - FuzzingLineCodec.checksumSuffixLength)...].starts(
      with: Array(",\"crc\":\"".utf8))
  {
    body.removeLast(FuzzingLineCodec.checksumSuffixLength)
  }
  guard !body.contains(0x0A) else { return 0 }
  guard let event = decode(withChecksum(body)) else { return 0 }
  // FORMAT.md: `data` is an object. The checksum keeps damage out, but not a line made by hand.
  let dataIsObject = event.data.withUnsafeBytes { data in
    var cursor = JSONCursor(unsafeBytes: data)
    return event.data.first == 0x7B && (try? cursor.skipValue()) != nil
      && (try? cursor.expectEnd()) != nil
  }
  if !dataIsObject {
    // A known finding (docs/FUZZING.md): skipped whole, as the checks below fail on it too.
    if knownFindings.contains("line-data") { return 0 }
    fuzzCheck(
      false,
      "the decoder accepts \(fuzzShow(body)), whose data \(fuzzShow(event.data)) is not a JSON "
        + "object")
  }
  _ = try? EventVocabulary.decode(event)

  var written = FuzzingLineCodec.encode(event)
  written.removeLast()
  let rewritten = decode(written)
  fuzzCheck(
    rewritten == event,
    "\(fuzzShow(body)) decodes to \(event); the writer's line \(fuzzShow(written)) decodes to "
      + "\(String(describing: rewritten))")

  // The same members, last first: the decoder must not depend on their order.
  // Only lines the strict parser takes (no repeated keys, valid UTF-8) can be rebuilt this way.
  guard case .object(let object)? = try? JSONValue.parse(written) else { return 0 }
  var members = object.members.filter { $0.key != "crc" }
  members.reverse()
  var reordered = JSONValue.object(JSONObject(members)).compactBytes
  reordered.removeLast()
  // Rebuilding the line re-encodes the payload compactly, so payloads compare as JSON values.
  let reorderedEvent = decode(withChecksum(reordered)).map(compactPayload)
  fuzzCheck(
    reorderedEvent == compactPayload(event),
    "\(fuzzShow(written)) decodes to \(event); with its members reversed, "
      + "\(fuzzShow(reordered)) decodes to \(String(describing: reorderedEvent))")
  return 0
}

/// `body` (a line up to its checksum member) completed with `,"crc":"…"}`.
private func withChecksum(_ body: [UInt8]) -> [UInt8] {
  var line = body
  let crc = CRC32C.checksum(of: body)
  line.append(contentsOf: ",\"crc\":\"".utf8)
  FuzzingLineCodec.appendHex(crc, to: &line)
  line.append(contentsOf: "\"}".utf8)
  return line
}

/// `event` with its payload in compact form (as `JSONValue` writes it).
private func compactPayload(_ event: RecordedEvent) -> RecordedEvent {
  var event = event
  if let value = try? JSONValue.parse(event.data) { event.data = value.compactBytes }
  return event
}

/// The event on `line`, or `nil` when the decoder rejects it.
private func decode(_ line: [UInt8]) -> RecordedEvent? {
  try? FuzzingLineCodec.decode(line).get()
}
