/// An error a command throws to end with a message and a chosen exit status.
///
/// `runCommandLine` prints `Error: <message>` to standard error and exits with `exitCode`;
/// when `exitCode` is `.usageError` it also prints the command's usage, as for parse errors.
/// Domain errors conform to this so commands can simply `throw` them.
protocol CLIError: Error {
  /// The status the process exits with.
  var exitCode: ExitCode { get }
  /// One phrase saying what went wrong and, if known, how to fix it.
  var message: String { get }
}
