/// Why an export failed.
package enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The output file could not be written; `reason` is the system's message. Nothing was
  /// left at `path`: an existing file there is unchanged.
  case cannotCreateOutput(path: String, reason: String)
  /// The output names a file of the log (`LogFiles`): the log itself, its key store, its
  /// index, its checkpoints or quarantine folder or a file in one, or a writer's temporary
  /// file. Nothing was written.
  case fileOfLog(path: String, role: LogFiles.Role, log: String, option: String)
  /// Two logs that must not share a file do: `path` is `otherRole` of the log `otherLog` (a
  /// migration's new log) and `role` of the log `log`. Nothing was written.
  case sharedFile(
    path: String, role: LogFiles.Role, log: String, otherRole: LogFiles.Role, otherLog: String,
    option: String)
  /// A value cannot be written in the format (a character XML 1.0 cannot hold).
  case unrepresentable(format: ExportFormat, value: String, reason: String)

  public var description: String {
    switch self {
    case .cannotCreateOutput(let path, let reason):
      return "cannot write '\(path)': \(reason)"
    case .fileOfLog(let path, let role, let log, let option):
      let what = role == .log ? "the event log '\(log)' itself" : "\(role) of log '\(log)'"
      return "'\(path)' is \(what); choose another \(option)"
    case .sharedFile(let path, let role, let log, let otherRole, let otherLog, let option):
      let what = role == .log ? "the event log '\(log)' itself" : "\(role) of log '\(log)'"
      return
        "'\(path)', \(otherRole) of log '\(otherLog)', is also \(what); choose another \(option)"
    case .unrepresentable(let format, let value, let reason):
      return "cannot export '\(value)' as \(format.rawValue): \(reason)"
    }
  }
}
