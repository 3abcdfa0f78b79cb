/// What can go wrong proving or checking that an event is in a log, or that a log only grew:
/// a proof that does not lead to its root, a signed note that does not verify, a log that does
/// not match a note, or input that is not what it claims to be.
///
/// `description` is one phrase naming what does not match: what was expected, what was found,
/// and where.
package enum TreeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A proof, a note or a log does not match what it was checked against; `problem` says
  /// which hash, size or signature differs, and how.
  case mismatch(problem: String)
  /// A file or value is not in the format it must have (a note, a key, a proof, a size);
  /// `problem` names it, what was expected and what was found.
  case invalidInput(problem: String)

  public var description: String {
    switch self {
    case .mismatch(let problem), .invalidInput(let problem): problem
    }
  }
}
