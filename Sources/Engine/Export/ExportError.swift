/// Why an export failed.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The output file could not be written; `reason` is the system's message. Nothing was
  /// left at `path`: an existing file there is unchanged.
  case cannotCreateOutput(path: String, reason: String)
  /// A value cannot be written in the format (a character XML 1.0 cannot hold).
  case unrepresentable(format: ExportFormat, value: String, reason: String)

  public var description: String {
    switch self {
    case .cannotCreateOutput(let path, let reason):
      return "cannot write '\(path)': \(reason)"
    case .unrepresentable(let format, let value, let reason):
      return "cannot export '\(value)' as \(format.rawValue): \(reason)"
    }
  }
}
