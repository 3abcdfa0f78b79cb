#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Stops the run when a property the target checks does not hold: libFuzzer sees the abort,
/// saves the input as a crash file, and `run.sh` exits non-zero.
///
/// - Parameters:
///   - condition: the property.
///   - message: what was expected and what happened; printed to stderr before the abort.
public func fuzzCheck(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #fileID, line: UInt = #line
) {
  guard !condition() else { return }
  let text = "FUZZ DISAGREEMENT at \(file):\(line): \(message())\n"
  var bytes = Array(text.utf8)
  _ = write(2, &bytes, bytes.count)
  abort()
}

/// `bytes` as text for a message: UTF-8 with invalid bytes replaced, cut after 2,000 characters.
public func fuzzShow(_ bytes: some Collection<UInt8>) -> String {
  let text = String(decoding: bytes, as: UTF8.self)
  return text.count > 2000 ? String(text.prefix(2000)) + "..." : text
}

/// Checks to leave out, from `FUZZ_KNOWN` (comma-separated names): findings already reported and
/// awaiting their fix, so that a long run can look for others. docs/FUZZING.md lists the names.
public let knownFindings: Set<String> = {
  guard let value = getenv("FUZZ_KNOWN") else { return [] }
  return Set(String(cString: value).split(separator: ",").map(String.init))
}()
