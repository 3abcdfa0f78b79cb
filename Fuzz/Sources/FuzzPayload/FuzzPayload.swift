import Events
import FuzzSupport

/// Every payload decoder, through `EventVocabulary.decode`, the entry point replay and
/// `append` use.
///
/// Input: a header line `<type> <schema>` (e.g. `ContactAdded 1`), then the payload's bytes.
/// Checks:
/// - whatever the strict decoder (user input) accepts, the lenient one (replay) accepts with the
///   same value;
/// - the same payload with a space after its `{` (which no fast path takes, so the general path
///   reads it) decodes to the same value or fails the same way;
/// - decode → encode → decode gives the same event, and encoding it again the same bytes. The
///   second decode is as strict as the first that accepted: replay accepts what the log holds
///   (a blank name written before names were checked), which user input may not say.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayload(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let input = UnsafeBufferPointer(start: start, count: count)
  guard let newline = input.firstIndex(of: 0x0A) else { return 0 }
  let header = String(decoding: input[..<newline], as: UTF8.self).split(separator: " ")
  guard header.count == 2, let schema = Int(header[1]), (1...3).contains(schema) else { return 0 }
  let type = String(header[0])
  let data = Array(input[(newline + 1)...])

  let lenient = Result { () throws(EventsError) in
    try EventVocabulary.decode(type: type, schemaVersion: schema, data: data, strict: false)
  }
  let strict = Result { () throws(EventsError) in
    try EventVocabulary.decode(type: type, schemaVersion: schema, data: data, strict: true)
  }
  if case .success(let event) = strict {
    fuzzCheck(
      (try? lenient.get()) == event,
      "strict decoding accepts \(type) \(fuzzShow(data)) as \(String(describing: event)), "
        + "lenient gives \(lenient)")
  }

  if data.first == 0x7B {
    let spaced = [0x7B, 0x20] + data.dropFirst()
    let general = Result { () throws(EventsError) in
      try EventVocabulary.decode(type: type, schemaVersion: schema, data: spaced, strict: false)
    }
    fuzzCheck(
      (try? general.get()) == (try? lenient.get()),
      "\(type) \(fuzzShow(data)) decodes to \(lenient), with a space after '{' to \(general)")
  }

  guard case .success(let decoded) = lenient, let event = decoded else { return 0 }
  let strictlyAccepted = (try? strict.get()) != nil
  let encoded = EventVocabulary.encode(event)
  let again: DomainEvent?
  do {
    again = try EventVocabulary.decode(
      type: encoded.type, schemaVersion: encoded.schemaVersion, data: encoded.data,
      strict: strictlyAccepted)
  } catch {
    fuzzCheck(
      false,
      "\(type) \(fuzzShow(data)) decodes, but its encoding \(fuzzShow(encoded.data)) is "
        + "rejected: \(error)")
    return 0
  }
  fuzzCheck(
    again == event,
    "\(type) \(fuzzShow(data)): decode → encode → decode gives \(String(describing: again)), "
      + "not \(event)")
  let reencoded = again.map { EventVocabulary.encode($0).data }
  fuzzCheck(
    reencoded == encoded.data,
    "\(type): encoding twice gives \(fuzzShow(encoded.data)), then "
      + "\(fuzzShow(reencoded ?? []))")
  return 0
}
