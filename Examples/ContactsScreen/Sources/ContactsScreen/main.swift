// The contacts app's home screen, headless: its two sections, printed again every time the log
// changes, whoever changes it (this process, another app, `replay contacts favorite 13`).
//
//   swift run ContactsScreen <log> [<updates to show before exiting>]
import Engine
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2, arguments.count <= 3 else {
  FileHandle.standardError.write(Data("usage: ContactsScreen <log> [<updates>]\n".utf8))
  exit(64)
}
let limit = arguments.count == 3 ? Int(arguments[2]) : nil
if arguments.count == 3, limit == nil {
  FileHandle.standardError.write(Data("'\(arguments[2])' is not a number of updates\n".utf8))
  exit(64)
}

do {
  let store = try await EventStore(path: arguments[1])
  var shown = 0
  for try await update in store.updates(of: [ContactList.name]) {
    var screen = "== contacts at seq \(update.sequence)\n"
    for section in update.models.contacts.sections {
      screen += "\(section.title) (\(section.contacts.count))\n"
      for row in section.contacts { screen += "  \(row.displayName)\n" }
    }
    // Written at once (not buffered): the screen must show now, even through a pipe.
    FileHandle.standardOutput.write(Data(screen.utf8))
    shown += 1
    if let limit, shown >= limit { break }
  }
} catch {
  FileHandle.standardError.write(Data("ContactsScreen: \(error)\n".utf8))
  exit(1)
}
