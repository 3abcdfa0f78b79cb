import FuzzSupport
@_spi(Fuzzing) import Importers

/// The importers: every kind's source parser (`SourceParser.parse`, reached through
/// `FuzzingSourceParser`) on the same bytes: JSON documents for all five kinds, XML and binary
/// property lists for states.
///
/// Checks: no crash, no sanitizer report, no unbounded recursion (ASan reports a stack overflow
/// as a crash); every input is either parsed or rejected with an `ImportError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  for kind in FuzzingSourceParser.kinds {
    _ = FuzzingSourceParser.parse(bytes, kind: kind)
  }
  return 0
}
