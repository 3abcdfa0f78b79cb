import Foundation

// Past a file-size limit (`ulimit -f`) a write must fail with EFBIG, which the log handles
// like a full disk (it cuts the file back and says so), not kill the process half-way.
signal(SIGXFSZ, SIG_IGN)
let terminal = Terminal.standard()
let status = runCommandLine(
  Array(CommandLine.arguments.dropFirst()), root: ReplayCommand.root,
  version: ReplayCommand.version, terminal: terminal)
exit(status.rawValue)
