import Foundation

let terminal = Terminal.standard()
let status = runCommandLine(
  Array(CommandLine.arguments.dropFirst()), root: ReplayCommand.root,
  version: ReplayCommand.version, terminal: terminal)
exit(status.rawValue)
