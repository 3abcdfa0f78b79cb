import Foundation

// Past a file-size limit (`ulimit -f`) a write must fail with EFBIG, which the log handles
// like a full disk (it cuts the file back and says so), not kill the process half-way.
signal(SIGXFSZ, SIG_IGN)
StandardDescriptors.reserveClosed()
let terminal = Terminal.standard()
let status: ExitCode
do throws(RawArguments.InvalidArgument) {
  let arguments = try RawArguments.decode(RawArguments.processArguments())
  status = runCommandLine(
    arguments, root: ReplayCommand.root, version: ReplayCommand.version, terminal: terminal)
} catch {
  terminal.writeError("Error: \(error.message)\n")
  status = .invalidInput
}
// Every write to standard output checked, the last buffer included, before the status.
exit(terminal.finish(status).rawValue)
