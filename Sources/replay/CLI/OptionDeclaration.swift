/// An option declared once, with the type its value is read as.
///
/// A command lists its declarations in `Command.options` and reads them back through
/// `ParsedInvocation`'s subscript with the same declaration, so an option's names appear only
/// where it is declared and a misspelled declaration does not compile:
///
///     static let sign = TextOption(names: ["--sign"], valueName: "key-file", help: "...")
///     ...
///     options: [CommonOptions.log, sign],
///     run: { invocation in let keyFile = invocation[HeadCommand.sign] ... }
///
/// Reading a declaration the command (or a parent group) does not list traps; every command
/// in the tree is walked in `CommandOptionsTests`.
protocol OptionDeclaration: Sendable {
  /// What the parser and help see: the names, value name, help and default.
  var option: Option { get set }
}

extension OptionDeclaration {
  /// The same declaration with the help (and requirement, and default) one command gives it;
  /// the command reads it through the shared declaration, found by its names.
  ///
  ///     CommonOptions.json.withHelp("Print the appended envelopes as JSON.")
  ///
  /// - Parameters:
  ///   - help: One line of help.
  ///   - isRequired: Whether the command line must give the option.
  ///   - defaultValue: The value used when the option is not given.
  /// - Returns: The declaration with that help.
  func withHelp(_ help: String, isRequired: Bool = false, defaultValue: String? = nil) -> Self {
    var copy = self
    copy.option.help = help
    copy.option.isRequired = isRequired
    copy.option.defaultValue = defaultValue
    return copy
  }
}

extension Option: OptionDeclaration {
  /// The option itself: an untyped option is parsed and shown in help but has no typed reader.
  var option: Option {
    get { self }
    set { self = newValue }
  }
}

extension OptionDeclaration where Self == Option {
  /// Creates a flag: an option without a value.
  ///
  /// - Parameters:
  ///   - names: The names, such as `["-v", "--verbose"]`.
  ///   - help: One line of help.
  ///   - isHidden: Whether help and usage leave it out.
  /// - Returns: The flag.
  static func flag(_ names: [String], help: String, isHidden: Bool = false) -> Option {
    Option(names: names, valueName: nil, help: help, isHidden: isHidden)
  }
}

/// A flag, read as `Bool`: whether it was given.
struct Flag: OptionDeclaration {
  var option: Option

  /// Declares a flag.
  ///
  /// - Parameters:
  ///   - names: The names, such as `["-f", "--follow"]`.
  ///   - help: One line of help.
  ///   - isHidden: Whether help and usage leave it out.
  init(_ names: [String], help: String, isHidden: Bool = false) {
    option = Option(names: names, valueName: nil, help: help, isHidden: isHidden)
  }
}

/// An option whose value is read as it was typed, as `String`.
struct TextOption: OptionDeclaration {
  var option: Option

  /// Declares an option with a text value.
  ///
  /// - Parameters:
  ///   - names: The names, such as `["--log"]`.
  ///   - valueName: The value placeholder, such as `path`.
  ///   - help: One line of help.
  ///   - defaultValue: The value used when the option is not given.
  ///   - defaultDescription: What help shows as the default instead of `defaultValue`.
  ///   - isRequired: Whether the option must be given.
  ///   - isRepeating: Whether every occurrence is collected.
  init(
    names: [String], valueName: String, help: String, defaultValue: String? = nil,
    defaultDescription: String? = nil, isRequired: Bool = false, isRepeating: Bool = false
  ) {
    option = Option(
      names: names, valueName: valueName, help: help, defaultValue: defaultValue,
      defaultDescription: defaultDescription, isRequired: isRequired, isRepeating: isRepeating)
  }
}

/// An option whose value is converted to `Value` when it is read; a value the conversion
/// rejects is a usage error naming the option as typed and what was expected.
struct ValueOption<Value>: OptionDeclaration {
  var option: Option
  /// What follows the quoted option in the error for a rejected value, such as
  /// `: expected a whole number ≥ 1`.
  let reason: String
  /// Converts the text, returning `nil` when it is invalid.
  let convert: @Sendable (String) -> Value?

  /// Declares an option with a converted value.
  ///
  /// - Parameters:
  ///   - names: The names, such as `["--limit"]`.
  ///   - valueName: The value placeholder, such as `count`.
  ///   - help: One line of help.
  ///   - defaultValue: The value used when the option is not given (converted too).
  ///   - defaultDescription: What help shows as the default instead of `defaultValue`.
  ///   - isRequired: Whether the option must be given.
  ///   - isRepeating: Whether every occurrence is collected.
  ///   - expectation: What a valid value looks like, such as `expected a whole number ≥ 1`.
  ///   - convert: Converts the text, returning `nil` when it is invalid.
  init(
    names: [String], valueName: String, help: String, defaultValue: String? = nil,
    defaultDescription: String? = nil, isRequired: Bool = false, isRepeating: Bool = false,
    expecting expectation: String, _ convert: @escaping @Sendable (String) -> Value?
  ) {
    option = Option(
      names: names, valueName: valueName, help: help, defaultValue: defaultValue,
      defaultDescription: defaultDescription, isRequired: isRequired, isRepeating: isRepeating)
    reason = expectation.isEmpty ? "" : ": \(expectation)"
    self.convert = convert
  }
}

extension ValueOption where Value == String {
  /// Declares an option whose value must be one of a fixed set of words; the error lists the
  /// choices the way swift-argument-parser lists an enumeration's values.
  ///
  /// - Parameters:
  ///   - names: The names, such as `["--format"]`.
  ///   - valueName: The value placeholder, such as `format`.
  ///   - help: One line of help.
  ///   - defaultValue: The value used when the option is not given.
  ///   - defaultDescription: What help shows as the default instead of `defaultValue`.
  ///   - choices: The accepted values.
  init(
    names: [String], valueName: String, help: String, defaultValue: String? = nil,
    defaultDescription: String? = nil, choices: [String]
  ) {
    option = Option(
      names: names, valueName: valueName, help: help, defaultValue: defaultValue,
      defaultDescription: defaultDescription)
    reason = ParsedInvocation.listing(choices)
    convert = { choices.contains($0) ? $0 : nil }
  }

}

extension UsageError {
  /// `Give either '--at <seq>' or '--as-of <time>', not both`: two options that exclude each
  /// other, as usage shows them.
  ///
  /// - Parameters:
  ///   - first: One option.
  ///   - second: The option it excludes.
  /// - Returns: The usage error.
  static func notBoth(_ first: some OptionDeclaration, _ second: some OptionDeclaration)
    -> UsageError
  {
    notBoth(first.option.quotedSynopsis, second.option.quotedSynopsis)
  }

  /// `Give either <first> or <second>, not both`, for labels already quoted (an argument is
  /// shown as `<seq>`).
  ///
  /// - Parameters:
  ///   - first: One label, such as `<seq>`.
  ///   - second: The label it excludes, such as `'--consistency <old size>'`.
  /// - Returns: The usage error.
  static func notBoth(_ first: String, _ second: String) -> UsageError {
    UsageError("Give either \(first) or \(second), not both")
  }
}

extension Option {
  /// The option as an error message quotes it: `'--at <seq>'`, or `'--json'` for a flag.
  var quotedSynopsis: String {
    "'" + preferredName + (valueName.map { " <\($0)>" } ?? "") + "'"
  }
}
