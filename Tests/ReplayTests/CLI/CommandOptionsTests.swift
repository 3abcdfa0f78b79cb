import Foundation
import Testing

@testable import replay

/// The real command tree's options: declared once, typed, each unique along its command path
/// and each read by the code; reading one a command does not declare cannot run.
@Suite struct CommandOptionsTests {
  /// Every command of the real tree, with its path from the root.
  private static func walk(
    _ command: Command, path: [Command] = [], _ visit: ([Command]) -> Void
  ) {
    let stack = path + [command]
    visit(stack)
    for subcommand in command.subcommands { walk(subcommand, path: stack, visit) }
  }

  @Test func realTreeIsValid() {
    #expect(ReplayCommand.root.configurationProblems(hasVersion: true) == [])
  }

  /// A name declared twice along one path would hide the ancestor's option from the reader,
  /// which looks the deepest declaration up.
  @Test func everyOptionNameIsUniqueAlongItsCommandPath() {
    var commandCount = 0
    Self.walk(ReplayCommand.root) { stack in
      commandCount += 1
      let names = stack.flatMap { $0.options.flatMap(\.names) }
      let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys
      #expect(
        repeated.isEmpty,
        "'\(stack.map(\.name).joined(separator: " "))' declares \(repeated.sorted()) twice")
    }
    #expect(commandCount > 30)
  }

  /// Options the code declares but does not read: none today. An entry needs a reason.
  private static let documentedUnread: [String: String] = [:]

  /// Every `static let` typed declaration in Sources/replay/Commands is read somewhere in
  /// Sources/replay through the reader (`invocation[X.name]`, `self[X.name]`,
  /// `requiredValue(X.name)`, ...), so no option is parsed and shown in help yet ignored.
  @Test func everyDeclaredOptionIsRead() throws {
    let sources = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources/replay")
    let files = try Self.swiftFiles(in: sources)
    #expect(files.count > 30)

    let declaration = try Regex(
      #"static let (\w+)\s*=\s*(?:Flag|TextOption|ValueOption|CommonOptions\.chunkSize|ReadModelArguments\.point|\w+\.\w+\.withHelp)\b"#
    )
    let typeLine = try Regex(#"^(?:enum|struct|extension) (\w+)"#).anchorsMatchLineEndings()
    let subscriptRead = try Regex(#"(?:invocation|self)\[\s*(?:(\w+)\.)?(\w+)\s*\]"#)
    let methodRead = try Regex(
      #"\.?(?:requiredValue|values|domainValue|optionalDomainValue|isGiven|requiredNumber)\(\s*(?:(\w+)\.)?(\w+)\b"#
    )

    var declared: [(type: String, name: String, file: String)] = []
    var reads: Set<String> = []
    let untyped = try Regex(#"(?:^|[^A-Za-z])Option\(|\.flag\("#)
    for (file, text) in files {
      let declares = file.hasPrefix("Commands/")
      // An untyped `Option` is parsed and shown in help but has no reader.
      #expect(!declares || !text.contains(untyped), "\(file) declares an untyped Option")
      let types = text.matches(of: typeLine).map {
        ($0.range.lowerBound, String($0.output[1].substring ?? ""))
      }
      for match in text.matches(of: declaration) where declares {
        let owner = types.last { $0.0 < match.range.lowerBound }?.1 ?? ""
        declared.append((owner, String(match.output[1].substring ?? ""), file))
      }
      for match in text.matches(of: subscriptRead) + text.matches(of: methodRead) {
        let qualifier = match.output[1].substring.map(String.init)
        let name = String(match.output[2].substring ?? "")
        // An unqualified or `Self.` read names a declaration of its own file.
        let owner = qualifier.flatMap { $0 == "Self" ? nil : $0 }
        reads.insert(owner.map { "\($0).\(name)" } ?? "\(file)#\(name)")
      }
    }
    #expect(declared.count > 60)
    for (type, name, file) in declared where Self.documentedUnread["\(type).\(name)"] == nil {
      #expect(
        reads.contains("\(type).\(name)") || reads.contains("\(file)#\(name)"),
        "\(type).\(name) (\(file)) is declared but never read")
    }
  }

  private static func swiftFiles(in folder: URL) throws -> [(String, String)] {
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    var files: [(String, String)] = []
    while let url = enumerator?.nextObject() as? URL {
      guard url.pathExtension == "swift" else { continue }
      let path = url.pathComponents.suffix(2).joined(separator: "/")
      files.append((path, try String(contentsOf: url, encoding: .utf8)))
    }
    return files
  }

  /// A declaration the command does not list cannot be read: the reader traps, so a
  /// misspelled or forgotten option fails the first test that runs the command, never
  /// silently reads nothing. (A misspelled declaration name does not compile.)
  @Test func readingAnUndeclaredOptionTraps() async {
    await #expect(processExitsWith: .failure) {
      let command = Command(name: "tool", abstract: "", options: [CommonOptions.json])
      let invocation = ParsedInvocation(
        commands: [command], terminal: .capturing(), parsedValues: ParsedValues())
      _ = invocation[CommonOptions.log]
    }
  }

  /// A declaration given other help by one command (`CommonOptions.json.withHelp(...)`) is
  /// read through the shared declaration, and keeps its own help.
  @Test func sharedDeclarationWithOwnHelpIsReadThroughTheSharedOne() throws {
    let variant = CommonOptions.json.withHelp("Print the proof as JSON.")
    let command = Command(name: "tool", abstract: "", options: [variant])
    let outcome = try CommandLineParser(root: command, hasVersion: false).parse(["--json"])
    guard case .run(let stack, let values) = outcome else {
      Issue.record("expected a command to run, got \(outcome)")
      return
    }
    let invocation = ParsedInvocation(commands: stack, terminal: .capturing(), parsedValues: values)
    #expect(invocation[CommonOptions.json])
    #expect(invocation.isGiven(CommonOptions.json))
    #expect(stack[0].options[0].help == "Print the proof as JSON.")
  }
}
