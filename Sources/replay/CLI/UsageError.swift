/// A bad command line: printed with the command's usage, and exit status 64.
///
/// The parser throws these; commands throw them too for checks the parser cannot make
/// (`UsageError("Give either '--stream <name>' or '--all'")`).
struct UsageError: CLIError, Equatable {
  /// The text after `Error: `.
  var message: String
  /// A reminder of the argument involved, printed after `Help:  `, such as
  /// `--from <seq>  The first sequence number.`
  var help: String?

  /// Creates a usage error.
  ///
  /// - Parameters:
  ///   - message: The text after `Error: `.
  ///   - help: A reminder of the argument involved, printed after `Help:  `.
  init(_ message: String, help: String? = nil) {
    self.message = message
    self.help = help
  }

  var exitCode: ExitCode { .usageError }
}

extension UsageError {
  static func unknownOption(_ name: String, suggestion: String?) -> UsageError {
    UsageError("Unknown option '\(name)'" + didYouMean(suggestion))
  }

  /// - Note: swift-argument-parser reports a word that names no subcommand as
  ///   `Unexpected argument '<word>'`; naming it a subcommand is clearer and leaves room for the
  ///   suggestion.
  static func unknownSubcommand(_ name: String, suggestion: String?) -> UsageError {
    UsageError("Unknown subcommand '\(name)'" + didYouMean(suggestion))
  }

  /// A single-valued option given twice: which value was meant cannot be guessed.
  static func repeatedOption(
    _ option: Option, first: (name: String, value: String), second: (name: String, value: String)
  ) -> UsageError {
    UsageError(
      "'\(option.preferredName)' was given twice ('\(first.name) \(first.value)' and "
        + "'\(second.name) \(second.value)'); give it once")
  }

  static func invalidOption(_ token: String) -> UsageError {
    UsageError("Invalid option: \(token)")
  }

  static func missingValue(for option: Option, spelledAs name: String) -> UsageError {
    let label = "\(name) <\(option.valueName ?? "")>"
    return UsageError("Missing value for '\(label)'", help: helpLine(label, option.help))
  }

  static func unexpectedValue(_ value: String, forFlag name: String) -> UsageError {
    UsageError("The option '\(name)' does not take any value, but '\(value)' was specified.")
  }

  static func unexpectedArguments(_ values: [String]) -> UsageError {
    if values.count == 1 {
      return UsageError("Unexpected argument '\(values[0])'")
    }
    let list = values.map { "'\($0)'" }.joined(separator: ", ")
    return UsageError("\(values.count) unexpected arguments: \(list)")
  }

  static func missingOption(_ option: Option) -> UsageError {
    var synopsis = "\(option.preferredName) <\(option.valueName ?? "")>"
    if option.isRepeating { synopsis += " ..." }
    // Like swift-argument-parser, the help line names the option by its first declared name.
    let label = "\(option.names.first ?? "") <\(option.valueName ?? "")>"
    return UsageError(
      "Missing expected argument '\(synopsis)'", help: helpLine(label, option.help))
  }

  static func missingArgument(_ argument: Argument) -> UsageError {
    let synopsis = argument.isRepeating ? "\(argument.label) ..." : argument.label
    return UsageError(
      "Missing expected argument '\(synopsis)'", help: helpLine(argument.label, argument.help))
  }

  /// A value that does not convert to the type the command expects.
  ///
  /// - Parameters:
  ///   - value: The value as given.
  ///   - label: `--from <seq>` (the name as typed) or `<position>`.
  ///   - reason: What follows the quoted label, such as `: expected a whole number`.
  ///   - help: The option's or argument's help line.
  static func invalidValue(
    _ value: String, for label: String, reason: String, help: String
  ) -> UsageError {
    UsageError(
      "The value '\(value)' is invalid for '\(label)'\(reason)", help: helpLine(label, help))
  }

  private static func didYouMean(_ suggestion: String?) -> String {
    suggestion.map { ". Did you mean '\($0)'?" } ?? ""
  }

  /// swift-argument-parser prints `Help:  <label>  <abstract>`; without an abstract the line
  /// would say nothing, so it is left out.
  private static func helpLine(_ label: String, _ help: String) -> String? {
    help.isEmpty ? nil : "\(label)  \(help)"
  }
}
