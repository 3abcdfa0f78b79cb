/// Renders help text and usage lines in swift-argument-parser's layout.
///
/// The layout copies swift-argument-parser 1.8.2 (`Usage/HelpGenerator.swift` and
/// `Usage/UsageGenerator.swift`):
///
///     OVERVIEW: <abstract>
///
///     <discussion>
///
///     USAGE: replay append [--log <path>] <stream> [<events> ...]
///
///     ARGUMENTS:
///       <stream>                The stream to append to.
///
///     OPTIONS:
///       -l, --log <path>        The event log. (default: events.log)
///       --version               Show the version.
///       -h, --help              Show help information.
///
///     SUBCOMMANDS:
///       append                  Append events to a stream.
///
///       See 'replay help <subcommand>' for detailed help.
///
/// Labels are indented 2 columns and help starts at column 26; a label too long for that
/// column puts its help on the next line. Help wraps at 80 columns (swift-argument-parser uses
/// the terminal width; a fixed width keeps output stable in scripts and tests). Hidden options
/// appear in neither help nor usage. `--version` appears in every command's options when the
/// tool has a version, because swift-argument-parser accepts it at every level.
struct HelpGenerator {
  /// The width help text wraps to.
  static let screenWidth = 80
  /// The indent of labels in a section.
  static let labelIndent = 2
  /// The column where help after a label starts.
  static let helpColumn = 26
  /// More arguments than this shrink the usage line to `[<options>]`.
  static let maximumUsageArguments = 12

  /// The command and its ancestors, root first.
  var stack: [Command]
  /// Whether the tool has a version, which adds `--version` to the options.
  var hasVersion: Bool

  /// The command the help is about.
  var command: Command {
    guard let last = stack.last else { preconditionFailure("a help stack is never empty") }
    return last
  }

  /// The command path as typed, such as `replay append`.
  var commandPath: String {
    stack.map(\.name).joined(separator: " ")
  }

  /// The usage synopsis, such as `replay append [--log <path>] <stream>`.
  ///
  /// Options come first, in declaration order, then the positional arguments; a group ends
  /// with `<subcommand>`. Optional items are in brackets and repeating ones end with ` ...`.
  /// Like swift-argument-parser, when there are more than 12 items, only the required
  /// ones are listed after `[<options>]`, or `<options>` stands in for all of them.
  var usage: String {
    let command = command
    let options = command.options.filter { !$0.isHidden }
    let arguments = command.arguments.map(Self.usageSynopsis(of:))
    var items = options.map(Self.usageSynopsis(of:)) + arguments
    if items.count > Self.maximumUsageArguments {
      items = options.filter(\.isRequired).map(Self.usageSynopsis(of:)) + arguments
      if !items.isEmpty, items.count <= Self.maximumUsageArguments {
        items.insert("[<options>]", at: 0)
      } else {
        items = ["<options>"]
      }
    }
    if !command.subcommands.isEmpty {
      items.append("<subcommand>")
    }
    return ([commandPath] + items).joined(separator: " ")
  }

  /// The full help text.
  ///
  /// A command's help ends with a line break and a group's with the
  /// `See 'replay help <subcommand>' for detailed help.` line, without one. `runCommandLine`
  /// prints it followed by a line break, as swift-argument-parser's `print` does, so a
  /// command's help ends with an empty line.
  ///
  /// - Returns: The help text.
  func render() -> String {
    let command = command
    var text = ""
    var overview = command.abstract
    if let discussion = command.discussion, !discussion.isEmpty {
      overview += (overview.isEmpty ? "\n" : "\n\n") + discussion
    }
    if !overview.isEmpty {
      text += TextWrapping.wrap("OVERVIEW: " + overview, width: Self.screenWidth) + "\n\n"
    }
    text += "USAGE: \(usage)\n\n"

    var sections: [String] = []
    let arguments = command.arguments.map { Row(label: $0.label, help: $0.help) }
    if !arguments.isEmpty {
      sections.append(Self.renderSection("ARGUMENTS", arguments))
    }
    var options = command.options.filter { !$0.isHidden }.map(Self.row(for:))
    if hasVersion {
      options.append(Row(label: "--version", help: "Show the version."))
    }
    options.append(Row(label: "-h, --help", help: "Show help information."))
    sections.append(Self.renderSection("OPTIONS", options))
    let subcommands = command.subcommands.map { Row(label: $0.name, help: $0.abstract) }
    if !subcommands.isEmpty {
      sections.append(Self.renderSection("SUBCOMMANDS", subcommands))
    }
    text += sections.joined(separator: "\n")

    if !subcommands.isEmpty {
      var names = stack.map(\.name)
      names.insert(CommandLineParser.helpCommandName, at: 1)
      text += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help."
    }
    return text
  }

  /// The two lines after an error message: the usage and where to find help.
  ///
  ///     Usage: replay append [--log <path>] <stream>
  ///       See 'replay append --help' for more information.
  var errorFooter: String {
    "Usage: \(usage)\n  See '\(commandPath) --help' for more information."
  }

  // MARK: Rows

  private struct Row {
    var label: String
    var help: String
  }

  private static func row(for option: Option) -> Row {
    // Short names first, then long ones, as swift-argument-parser's `partitioned` orders them.
    let shortNames = option.names.filter { !$0.hasPrefix("--") }
    let longNames = option.names.filter { $0.hasPrefix("--") }
    var label = (shortNames + longNames).joined(separator: ", ")
    if let valueName = option.valueName {
      label += " <\(valueName)>"
    }
    var help = option.help
    if let defaultText = option.defaultDescription ?? option.defaultValue {
      help += (help.isEmpty ? "" : " ") + "(default: \(defaultText))"
    }
    return Row(label: label, help: help)
  }

  private static func renderSection(_ title: String, _ rows: [Row]) -> String {
    title + ":\n" + rows.map(renderRow).joined()
  }

  private static func renderRow(_ row: Row) -> String {
    let label = String(repeating: " ", count: labelIndent) + row.label
    guard !row.help.isEmpty else { return label + "\n" }
    let help = TextWrapping.wrap(row.help, width: screenWidth, indent: helpColumn)
    if label.count < helpColumn {
      // The wrapped help starts with `helpColumn` spaces; the label takes their place.
      return label + help.dropFirst(label.count) + "\n"
    }
    return label + "\n" + help + "\n"
  }

  // MARK: Usage synopses

  private static func usageSynopsis(of option: Option) -> String {
    var synopsis = option.preferredName
    if let valueName = option.valueName {
      synopsis += " <\(valueName)>"
    }
    if option.isRepeating {
      synopsis += " ..."
    }
    return option.isRequired ? synopsis : "[\(synopsis)]"
  }

  private static func usageSynopsis(of argument: Argument) -> String {
    let synopsis = argument.isRepeating ? "\(argument.label) ..." : argument.label
    return argument.isOptional ? "[\(synopsis)]" : synopsis
  }
}
