/// Parses a command line against a command tree, following swift-argument-parser's
/// conventions.
///
/// - `--name value`, `--name=value`, `-n value` and `-n=value` give an option its value; a
///   value may start with a single `-` (`--from -1`) unless it is one of this command's short
///   options, but a value starting with `--` must use the `--name=value` form.
/// - `-abc` sets the short flags `-a`, `-b` and `-c` when all three are flags.
/// - A non-repeating option given twice is a usage error naming both values (swift-argument-parser
///   keeps the last, which lets a second `--log` silently redirect a write); a repeating one
///   keeps all. A flag given twice is still one flag.
/// - `--` ends the options: everything after it is a positional value.
/// - Options and positional values may be mixed in any order; options of a group come
///   before its subcommand's name.
/// - `-h` or `--help` anywhere before `--` asks for the selected command's help, even when
///   the rest of the line has errors; `--version` prints the version at any level.
/// - `replay help <subcommand> ...` asks for a subcommand's help; names that match no
///   subcommand are ignored, as in swift-argument-parser.
/// - Errors are reported in the order of the arguments, then missing required options and
///   arguments, then unexpected extra values. (swift-argument-parser reports missing ones
///   first; a misspelled option usually causes the missing one, so naming it helps more.)
struct CommandLineParser {
  /// The name of the built-in subcommand that prints help: `replay help append`.
  static let helpCommandName = "help"

  /// The built-in `help` subcommand, so that `replay help help` explains it.
  static let helpCommand = Command(
    name: helpCommandName,
    abstract: "Show subcommand help information.",
    arguments: [Argument(name: "subcommands", help: "", isOptional: true, isRepeating: true)])

  /// What the command line asks for.
  enum Outcome {
    /// Print the help of the last command in the stack.
    case help([Command])
    /// Print the version.
    case version
    /// Run the last command in the stack.
    case run([Command], ParsedValues)
  }

  /// A usage error, with the commands selected when it was found (for the usage line).
  struct Failure: Error {
    var stack: [Command]
    var error: UsageError
  }

  /// The root of the command tree.
  var root: Command
  /// Whether `--version` is accepted.
  var hasVersion: Bool

  /// Parses a command line.
  ///
  /// - Parameter arguments: The arguments after the program name.
  /// - Returns: What the command line asks for.
  /// - Throws: `Failure` for a bad command line.
  func parse(_ arguments: [String]) throws(Failure) -> Outcome {
    var stack = [root]
    var values = ParsedValues()
    var start = 0
    while true {
      let command = stack[stack.count - 1]
      var level = Level(
        command: command, depth: stack.count - 1, hasVersion: hasVersion, arguments: arguments,
        index: start)
      let step: Level.Step
      do {
        step = try level.parse(into: &values)
      } catch {
        // As in swift-argument-parser, asking for help beats any error in the same command.
        if let outcome = level.builtInRequest(in: arguments[start...], stack: stack) {
          return outcome
        }
        throw Failure(stack: stack, error: error)
      }
      switch step {
      case .builtIn:
        guard let outcome = level.builtInRequest(in: arguments[start...], stack: stack) else {
          preconditionFailure("a built-in option was found but the scan for it failed")
        }
        return outcome
      case .subcommand(let subcommand, let next):
        stack.append(subcommand)
        start = next
      case .helpSubcommand(let next):
        return .help(try helpStack(for: arguments[next...]))
      case .finished:
        return .run(stack, values)
      }
    }
  }

  /// The commands named after `replay help`; option-like arguments are ignored.
  ///
  /// - Note: swift-argument-parser shows the deepest command that matched and exits 0 when a
  ///   name matches nothing; we report the unknown name as a usage error with a suggestion, so
  ///   that a script asking for a subcommand's help learns that the subcommand does not exist.
  private func helpStack(for names: ArraySlice<String>) throws(Failure) -> [Command] {
    var stack = [root]
    for name in names where !name.hasPrefix("-") {
      let current = stack[stack.count - 1]
      if let subcommand = current.subcommands.first(where: { $0.name == name }) {
        stack.append(subcommand)
      } else if stack.count == 1, name == Self.helpCommandName {
        stack.append(Self.helpCommand)
      } else {
        var candidates = current.subcommands.map(\.name)
        if stack.count == 1 { candidates.append(Self.helpCommandName) }
        throw Failure(
          stack: stack,
          error: .unknownSubcommand(
            name, suggestion: SpellingSuggestion.closest(to: name, among: candidates)))
      }
    }
    return stack
  }
}

/// Parses the part of the command line that belongs to one command of the stack.
private struct Level {
  enum Step {
    /// `-h`, `--help` or `--version` was found.
    case builtIn
    /// A subcommand's name was found; its arguments start at the index.
    case subcommand(Command, Int)
    /// `help` was found at the root; the names of the commands to explain start at the index.
    case helpSubcommand(Int)
    /// The command's arguments were all parsed.
    case finished
  }

  let command: Command
  let depth: Int
  let hasVersion: Bool
  let arguments: [String]
  var index: Int

  mutating func parse(into values: inout ParsedValues) throws(UsageError) -> Step {
    var positionIndex = 0
    var extraValues: [String] = []
    var isAfterTerminator = false
    var acceptsSubcommand = !command.subcommands.isEmpty
    while index < arguments.count {
      let token = arguments[index]
      index += 1
      if !isAfterTerminator {
        if token == "--" {
          isAfterTerminator = true
          continue
        }
        if isOptionLike(token) {
          if try parseOption(token, into: &values) {
            return .builtIn
          }
          continue
        }
        if acceptsSubcommand {
          if let subcommand = command.subcommands.first(where: { $0.name == token }) {
            return .subcommand(subcommand, index)
          }
          if depth == 0, token == CommandLineParser.helpCommandName {
            return .helpSubcommand(index)
          }
          if command.arguments.isEmpty {
            var candidates = command.subcommands.map(\.name)
            if depth == 0 { candidates.append(CommandLineParser.helpCommandName) }
            throw .unknownSubcommand(
              token, suggestion: SpellingSuggestion.closest(to: token, among: candidates))
          }
          // A group with positional arguments: the first value that names no subcommand is
          // its first argument, and from then on no word is taken for a subcommand.
          acceptsSubcommand = false
        }
      }
      if positionIndex < command.arguments.count {
        let argument = command.arguments[positionIndex]
        values.arguments[ParsedValues.Key(depth: depth, name: argument.name), default: []]
          .append(token)
        if !argument.isRepeating { positionIndex += 1 }
      } else {
        extraValues.append(token)
      }
    }

    for option in command.options where option.isRequired {
      if values.options[key(option)] == nil {
        throw .missingOption(option)
      }
    }
    for argument in command.arguments where !argument.isOptional {
      if values.arguments[ParsedValues.Key(depth: depth, name: argument.name)] == nil {
        throw .missingArgument(argument)
      }
    }
    if !extraValues.isEmpty {
      throw .unexpectedArguments(extraValues)
    }
    return .finished
  }

  /// Parses one option and its value, if any.
  ///
  /// - Returns: `true` when the option is `-h`, `--help` or `--version`.
  private mutating func parseOption(
    _ token: String, into values: inout ParsedValues
  ) throws(UsageError) -> Bool {
    if token.hasPrefix("---") {
      throw .invalidOption(token)
    }
    let (name, attachedValue) = Self.split(token)
    if isBuiltIn(name) {
      return true
    }
    if let option = command.options.first(where: { $0.names.contains(name) }) {
      try record(option, typedAs: name, attachedValue: attachedValue, into: &values)
      return false
    }
    if !name.hasPrefix("--"), attachedValue == nil, let flags = combinedShortFlags(name) {
      if flags.isEmpty { return true }  // `-h` was among them.
      for flag in flags {
        values.flags.insert(key(flag))
      }
      return false
    }
    let suggestion = suggestion(for: name)
    if suggestion == nil, !name.hasPrefix("--"), name.count > 2 {
      // Like swift-argument-parser, `-qx` with a valid `-q` reports the first unknown letter.
      let shortNames = Set(command.options.flatMap(\.names))
      if let unknown = name.dropFirst().map({ "-\($0)" }).first(where: { !shortNames.contains($0) })
      {
        throw .unknownOption(unknown, suggestion: nil)
      }
    }
    throw .unknownOption(name, suggestion: suggestion)
  }

  private mutating func record(
    _ option: Option, typedAs name: String, attachedValue: String?,
    into values: inout ParsedValues
  ) throws(UsageError) {
    if option.isFlag {
      if let attachedValue {
        throw .unexpectedValue(attachedValue, forFlag: name)
      }
      values.flags.insert(key(option))
      return
    }
    let value: String
    if let attachedValue, !attachedValue.isEmpty {
      value = attachedValue
    } else if attachedValue != nil {
      // swift-argument-parser reads `--name=` as a missing value, not an empty one.
      throw .missingValue(for: option, spelledAs: name)
    } else if index < arguments.count, isValue(arguments[index]) {
      value = arguments[index]
      index += 1
    } else {
      throw .missingValue(for: option, spelledAs: name)
    }
    var given =
      values.options[key(option)] ?? ParsedValues.OptionValues(values: [], typedName: name)
    if !option.isRepeating, let first = given.values.first {
      throw .repeatedOption(option, first: (given.typedName, first), second: (name, value))
    }
    given.values.append(value)
    given.typedName = name
    values.options[key(option)] = given
  }

  /// Whether the argument after a valued option can be its value: anything but `--`, a word
  /// starting with `--`, or one of this command's short options (`-1` and `-` are values).
  private func isValue(_ token: String) -> Bool {
    if token.hasPrefix("--") { return false }
    guard isOptionLike(token) else { return true }
    let name = Self.split(token).name
    if isBuiltIn(name) || command.options.contains(where: { $0.names.contains(name) }) {
      return false
    }
    return combinedShortFlags(name) == nil
  }

  /// The flags `-abc` stands for when `-a`, `-b` and `-c` are all short flags (or `-h`);
  /// empty when one of them is `-h`, which asks for help.
  private func combinedShortFlags(_ name: String) -> [Option]? {
    guard !name.hasPrefix("--"), name.count > 2 else { return nil }
    var flags: [Option] = []
    var asksForHelp = false
    for character in name.dropFirst() {
      let shortName = "-\(character)"
      if shortName == "-h" {
        asksForHelp = true
      } else if let flag = command.options.first(where: {
        $0.isFlag && $0.names.contains(shortName)
      }) {
        flags.append(flag)
      } else {
        return nil
      }
    }
    return asksForHelp ? [] : flags
  }

  private func isBuiltIn(_ name: String) -> Bool {
    name == "-h" || name == "--help" || (hasVersion && name == "--version")
  }

  private func isOptionLike(_ token: String) -> Bool {
    token.hasPrefix("-") && token.count > 1
  }

  /// Like swift-argument-parser, short names get no suggestion, and only names shown in help
  /// are suggested; unlike it, `--help` and `--version` are candidates too.
  private func suggestion(for name: String) -> String? {
    if !name.hasPrefix("--"), name.count == 2 { return nil }
    var candidates = command.options.filter { !$0.isHidden }
      .flatMap(\.names).filter { $0.hasPrefix("--") }
    if hasVersion { candidates.append("--version") }
    candidates.append("--help")
    return SpellingSuggestion.closest(to: name, among: candidates)
  }

  private func key(_ option: Option) -> ParsedValues.Key {
    ParsedValues.Key(depth: depth, name: option.preferredName)
  }

  /// Splits `--name=value` into its name and value.
  private static func split(_ token: String) -> (name: String, value: String?) {
    guard let equals = token.firstIndex(of: "=") else { return (token, nil) }
    return (String(token[..<equals]), String(token[token.index(after: equals)...]))
  }

  /// The help or version request among a command's arguments, looking no further than `--`;
  /// help wins when both are there, as in swift-argument-parser.
  func builtInRequest(
    in tokens: ArraySlice<String>, stack: [Command]
  ) -> CommandLineParser.Outcome? {
    var asksForVersion = false
    for token in tokens {
      if token == "--" { break }
      guard isOptionLike(token), !token.hasPrefix("---") else { continue }
      let name = Self.split(token).name
      if name == "-h" || name == "--help" || combinedShortFlags(name)?.isEmpty == true {
        return .help(stack)
      }
      if hasVersion, name == "--version" {
        asksForVersion = true
      }
    }
    return asksForVersion ? .version : nil
  }
}
