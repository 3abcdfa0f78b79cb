/// One command or subcommand of the `replay` command tree, described declaratively.
///
/// `runCommandLine(_:root:version:terminal:)` parses a command line against a tree of these,
/// prints help, version and errors, and calls the selected command's `run` closure.
///
///     let append = Command(
///       name: "append",
///       abstract: "Append events to a stream.",
///       arguments: [Argument(name: "stream", help: "The stream to append to.")],
///       options: [CommonOptions.log],
///       run: { invocation in ... return .success })
struct Command: Sendable {
  /// The name typed on the command line, such as `append`; the root's name is the tool name.
  var name: String
  /// One line shown after `OVERVIEW:` and in the parent's `SUBCOMMANDS:` list.
  var abstract: String
  /// Extra paragraphs shown after the abstract in `OVERVIEW:`; line breaks are kept.
  var discussion: String?
  /// The positional arguments, in the order they are given.
  var arguments: [Argument]
  /// The valued options and flags, in the order help lists them.
  var options: [Option]
  /// The child commands; a command with children is a group.
  var subcommands: [Command]
  /// What the command does; `nil` for a pure group, which prints its help when run.
  var run: (@Sendable (ParsedInvocation) throws -> ExitCode)?

  /// Creates a command.
  ///
  /// - Parameters:
  ///   - name: The name typed on the command line.
  ///   - abstract: One line for `OVERVIEW:` and the parent's `SUBCOMMANDS:` list.
  ///   - discussion: Extra paragraphs after the abstract.
  ///   - arguments: The positional arguments, in order.
  ///   - options: The valued options and flags, typed declarations (`Flag`, `TextOption`,
  ///     `ValueOption`) that the command reads back through them.
  ///   - subcommands: The child commands.
  ///   - run: What the command does; `nil` for a group that only prints its help.
  init(
    name: String,
    abstract: String,
    discussion: String? = nil,
    arguments: [Argument] = [],
    options: [any OptionDeclaration] = [],
    subcommands: [Command] = [],
    run: (@Sendable (ParsedInvocation) throws -> ExitCode)? = nil
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.arguments = arguments
    self.options = options.map(\.option)
    self.subcommands = subcommands
    self.run = run
  }
}

/// A positional argument, shown as `<name>`.
struct Argument: Sendable, Equatable {
  /// The name shown between angle brackets and used to look the value up.
  var name: String
  /// One line shown in `ARGUMENTS:`.
  var help: String
  /// Whether the argument may be left out.
  var isOptional = false
  /// Whether the argument takes all remaining values (variadic); only the last argument may.
  var isRepeating = false

  /// The argument as shown in help: `<name>`.
  var label: String { "<\(name)>" }
}

/// A named option: a flag (`--verbose`) or an option with a value (`--log <path>`).
struct Option: Sendable, Equatable {
  /// The names, each a short `-k` or a long `--key`, in the order help shows them after the
  /// short ones.
  var names: [String]
  /// The placeholder for the value, shown as `<valueName>`; `nil` makes the option a flag.
  var valueName: String?
  /// One line shown in `OPTIONS:`.
  var help: String
  /// The value used when the option is not given; help shows it as `(default: ...)`.
  var defaultValue: String?
  /// What help shows after `default:` instead of `defaultValue`, such as
  /// `$REPLAY_LOG or events.log` for a default computed elsewhere.
  var defaultDescription: String?
  /// Whether the command line must give the option (it then has no brackets in the usage).
  var isRequired = false
  /// Whether every occurrence is collected; otherwise the last occurrence wins.
  var isRepeating = false
  /// Whether help and usage leave the option out; it is still parsed.
  var isHidden = false

  /// Whether the option is a flag, taking no value.
  var isFlag: Bool { valueName == nil }

  /// The name used in usage lines and error messages: the first long name, else the first name.
  var preferredName: String {
    names.first { $0.hasPrefix("--") } ?? names.first ?? ""
  }
}
