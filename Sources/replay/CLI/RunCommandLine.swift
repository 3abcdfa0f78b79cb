/// Parses a command line, prints help, the version or errors, and runs the selected command.
///
/// Output follows swift-argument-parser (`Usage/MessageInfo.swift`,
/// `ParsableArguments.exit(withError:)`):
///
/// - Help (`-h`, `--help`, `replay help <subcommand>`, or a group run without a subcommand)
///   goes to standard output, followed by a line break; the status is `.success`.
/// - `--version` prints the version and a line break to standard output; `.success`.
/// - A usage error goes to standard error as
///
///       Error: <message>
///       Help:  <label>  <help>                     (only for some errors)
///       Usage: <usage>
///         See '<command path> --help' for more information.
///
///   and the status is `.usageError` (64). A `CLIError` thrown by a command with the status
///   `.usageError` is printed the same way.
/// - Any other `CLIError` thrown by a command prints `Error: <message>` to standard error and
///   exits with its status; any other error prints `Error: <description>` and exits with
///   `.internalError` (1).
/// - Standard output is flushed through `Terminal.finish(_:)`: if any write to it failed, the
///   status is `.ioError` (74) with `Error: cannot write to standard output: <reason>; the
///   output is incomplete`, except for a closed pipe, which ends quietly with the command's
///   status.
///
/// - Parameters:
///   - arguments: The arguments after the program name (`CommandLine.arguments.dropFirst()`).
///   - root: The command tree; its name is the tool name shown in help.
///   - version: The version `--version` prints; `nil` to offer no `--version`.
///   - terminal: Where output goes; it is flushed and checked before this returns.
/// - Returns: The status to exit with.
func runCommandLine(
  _ arguments: [String], root: Command, version: String?, terminal: Terminal
) -> ExitCode {
  let status = parseAndRun(arguments, root: root, version: version, terminal: terminal)
  return terminal.finish(status)
}

private func parseAndRun(
  _ arguments: [String], root: Command, version: String?, terminal: Terminal
) -> ExitCode {
  #if DEBUG
    let problems = root.configurationProblems(hasVersion: version != nil)
    precondition(problems.isEmpty, "invalid command tree:\n" + problems.joined(separator: "\n"))
  #endif
  let hasVersion = version != nil
  let outcome: CommandLineParser.Outcome
  do {
    outcome = try CommandLineParser(root: root, hasVersion: hasVersion).parse(arguments)
  } catch {
    printUsageError(error.error, stack: error.stack, hasVersion: hasVersion, terminal: terminal)
    return .usageError
  }

  switch outcome {
  case .help(let stack):
    terminal.write(HelpGenerator(stack: stack, hasVersion: hasVersion).render() + "\n")
    return .success
  case .version:
    terminal.write((version ?? "") + "\n")
    return .success
  case .run(let stack, let values):
    guard let run = stack[stack.count - 1].run else {
      // swift-argument-parser's default `run()` throws a help request: a group run without a
      // subcommand shows its help and succeeds.
      terminal.write(HelpGenerator(stack: stack, hasVersion: hasVersion).render() + "\n")
      return .success
    }
    let invocation = ParsedInvocation(commands: stack, terminal: terminal, parsedValues: values)
    do {
      try invocation.refusePostgresWhereUnsupported()
      return try run(invocation)
    } catch let error as any CLIError {
      if error.exitCode == .usageError {
        let usageError = error as? UsageError ?? UsageError(error.message)
        printUsageError(usageError, stack: stack, hasVersion: hasVersion, terminal: terminal)
      } else {
        terminal.writeError("Error: \(error.message)\n")
      }
      return error.exitCode
    } catch {
      terminal.writeError("Error: \(String(describing: error))\n")
      return .internalError
    }
  }
}

private func printUsageError(
  _ error: UsageError, stack: [Command], hasVersion: Bool, terminal: Terminal
) {
  var text = "Error: \(error.message)\n"
  if let help = error.help {
    text += "Help:  \(help)\n"
  }
  text += HelpGenerator(stack: stack, hasVersion: hasVersion).errorFooter + "\n"
  terminal.writeError(text)
}
