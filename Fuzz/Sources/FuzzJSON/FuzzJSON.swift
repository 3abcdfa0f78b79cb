@_spi(Fuzzing) import Events
import FuzzSupport

/// JSON: the strict parser (`JSONValue.parse`, which reads `--data`, events files and import
/// sources) against the lenient cursor the read path uses, and against its own encoder.
///
/// Checks: the parser never crashes; what the parser accepts the cursor accepts too (the
/// parser only adds checks); decode → encode → decode gives the same value and the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let input = UnsafeBufferPointer(start: start, count: count)
  let value: JSONValue
  do {
    value = try JSONValue.parse(input)
  } catch {
    return 0
  }
  var cursor = JSONCursor(unsafeBytes: UnsafeRawBufferPointer(input))
  do {
    try cursor.skipValue()
    try cursor.expectEnd()
  } catch {
    fuzzCheck(false, "the parser accepts \(fuzzShow(input)) but the cursor says \(error)")
  }
  let encoded = value.compactBytes
  let again: JSONValue
  do {
    again = try JSONValue.parse(encoded)
  } catch {
    fuzzCheck(false, "the encoding \(fuzzShow(encoded)) of an accepted value is rejected: \(error)")
    return 0
  }
  let reencoded = again.compactBytes
  fuzzCheck(
    reencoded == encoded,
    "encode → decode → encode changed \(fuzzShow(encoded)) into \(fuzzShow(reencoded))")
  return 0
}
