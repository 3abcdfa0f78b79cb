/// Why an audit could not name the entity it was asked about.
package enum AuditError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No stream matches `input`, as a stream name or as an id under any category. `tried` lists
  /// the streams looked for; `suggestion` is a stream with a similar name, if one was found.
  case noSuchEntity(input: String, path: String, tried: [String], suggestion: String?)
  /// `input` is an id found under several categories: each of `streams` has events.
  case ambiguousEntity(input: String, streams: [String])

  public var description: String {
    switch self {
    case .noSuchEntity(let input, let path, let tried, let suggestion):
      var text: String
      if EntityStream(input) != nil {
        text = "no stream '\(input)' in '\(path)'"
      } else {
        let streams = tried.map { "'\($0)'" }
        text =
          "no entity '\(input)' in '\(path)': no stream \(Self.list(streams, conjunction: "or"))"
          + " has events"
      }
      if let suggestion { text += "; did you mean '\(suggestion)'?" }
      return text
    case .ambiguousEntity(let input, let streams):
      return
        "'\(input)' is the id of \(streams.count) entities, in streams "
        + "\(Self.list(streams.map { "'\($0)'" }, conjunction: "and")); give the stream name instead"
    }
  }

  /// `a`, `a and b`, `a, b and c` (or `or`).
  static func list(_ items: [String], conjunction: String) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
  }
}
