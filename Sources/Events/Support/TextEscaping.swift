/// The loop behind the escapers of the exports, the report and the audits' change text: each
/// reads text scalar by scalar and writes a replacement for some of them.
package enum TextEscaping {
  /// `text` with every scalar that `replacement` answers for replaced by its answer, the others
  /// kept as they are.
  /// - Throws: what `replacement` throws, for a scalar the output cannot hold.
  package static func replacing<Failure: Error>(
    _ text: String, _ replacement: (Unicode.Scalar) throws(Failure) -> String?
  ) throws(Failure) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
      if let replaced = try replacement(scalar) {
        result += replaced
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The character reference that XML and HTML both write for `&`, `<` and `>`; `nil` for any
  /// other scalar.
  package static func markupReference(_ scalar: Unicode.Scalar) -> String? {
    switch scalar {
    case "&": "&amp;"
    case "<": "&lt;"
    case ">": "&gt;"
    default: nil
    }
  }
}
