import Foundation

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
terminal.flush()
exit(status.rawValue)
