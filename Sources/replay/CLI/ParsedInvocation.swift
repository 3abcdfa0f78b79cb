/// The parsed command line handed to a command's `run` closure, with the terminal to write to.
///
/// Options are read through their declarations (`invocation[CommonOptions.json]`,
/// `try invocation[LogCommand.limit]`), never by name; positional arguments by their name
/// without brackets (`"stream"`). Options declared by a parent group are visible too. Reading
/// an option or argument the command does not declare is a programmer error and traps.
///
/// A `ValueOption` converts its value when read and throws a `UsageError` naming the option as
/// typed and the bad value; the typed argument accessors (`uint64(_:)`, `parse(_:expecting:_:)`,
/// ...) do the same for arguments:
///
///     Error: The value '-1' is invalid for '--from <seq>': expected a non-negative whole number
///     Help:  --from <seq>  The first sequence number to read.
struct ParsedInvocation: Sendable {
  /// The selected command and its ancestors, root first.
  let commands: [Command]
  /// Where the command writes its output.
  let terminal: Terminal
  /// The values found on the command line; read them through the accessors below.
  let parsedValues: ParsedValues

  /// The command names from the root, such as `["replay", "append"]`.
  var commandPath: [String] { commands.map(\.name) }

  // MARK: Options

  /// Whether a flag was given.
  subscript(flag: Flag) -> Bool {
    let (key, option) = optionKey(flag.option)
    precondition(option.isFlag, "'\(option.preferredName)' is declared with a value, not a flag")
    return parsedValues.flags.contains(key)
  }

  /// The value of a text option: the last one given, else its `defaultValue`; `nil` when the
  /// option is absent and has no default.
  ///
  /// - Note: swift-argument-parser keeps the last value when a non-repeating option is given
  ///   more than once (`ParsedValues.set` replaces the earlier value), and so do we.
  subscript(option: TextOption) -> String? {
    texts(option.option).last
  }

  /// The value of an option converted to its type: the last one given, else its
  /// `defaultValue`; `nil` when the option is absent and has no default.
  ///
  /// - Throws: `UsageError` when the declaration's conversion rejects the value.
  subscript<Value>(option: ValueOption<Value>) -> Value? {
    get throws(UsageError) { try values(option).last }
  }

  /// Every value given for a repeating text option, in order; `[defaultValue]` when none was
  /// given.
  ///
  /// - Parameter option: The declaration.
  /// - Returns: The values.
  func values(_ option: TextOption) -> [String] {
    texts(option.option)
  }

  /// Every value given for an option, converted, in order.
  ///
  /// - Parameter option: The declaration.
  /// - Returns: The converted values; `[default]` when none was given.
  /// - Throws: `UsageError` for the first value the declaration's conversion rejects.
  func values<Value>(_ option: ValueOption<Value>) throws(UsageError) -> [Value] {
    try convert(texts(option.option), reason: option.reason, option.convert) { text, reason in
      invalidValue(text, for: option.option, reason: reason)
    }
  }

  /// The value of a required or defaulted text option, which the parser guarantees is present.
  ///
  /// - Parameter option: The declaration.
  /// - Returns: The value.
  func requiredValue(_ option: TextOption) -> String {
    guard let value = self[option] else {
      preconditionFailure(
        "'\(option.option.preferredName)' is neither required nor defaulted, so it may be absent")
    }
    return value
  }

  /// Whether the command line gives an option; a default value does not count.
  ///
  /// - Parameter declaration: The declaration.
  /// - Returns: `true` when the flag or a value for the option was typed.
  func isGiven(_ declaration: any OptionDeclaration) -> Bool {
    let (key, option) = optionKey(declaration.option)
    return option.isFlag ? parsedValues.flags.contains(key) : parsedValues.options[key] != nil
  }

  /// Whether the command (or a parent group) declares an option, for code shared by commands
  /// with different options.
  ///
  /// - Parameter declaration: The declaration.
  /// - Returns: `true` when reading the option is allowed.
  func declares(_ declaration: some OptionDeclaration) -> Bool {
    declaresOption(named: declaration.option.preferredName)
  }

  /// Whether the command (or a parent group) declares an option with this name, for a name
  /// made from a domain field (`--name` for the field `name`).
  ///
  /// - Parameter name: Any of the option's names, such as `"--name"`.
  /// - Returns: `true` when the command declares it.
  func declaresOption(named name: String) -> Bool {
    commands.contains { $0.options.contains { $0.names.contains(name) } }
  }

  // MARK: Arguments

  /// The value of a positional argument.
  ///
  /// - Parameter name: The argument's name, such as `"stream"`.
  /// - Returns: The value, or `nil` when an optional argument is absent.
  func argument(_ name: String) -> String? {
    arguments(name).first
  }

  /// Every value of a repeating positional argument, in order.
  ///
  /// - Parameter name: The argument's name, such as `"events"`.
  /// - Returns: The values; empty when none were given.
  func arguments(_ name: String) -> [String] {
    parsedValues.arguments[argumentKey(name).key] ?? []
  }

  /// The value of a required argument, which the parser guarantees is present.
  ///
  /// - Parameter name: The argument's name, such as `"stream"`.
  /// - Returns: The value.
  func requiredValue(_ name: String) -> String {
    guard let value = argument(name) else {
      preconditionFailure("'\(name)' is optional, so it may be absent")
    }
    return value
  }

  /// The value of an argument as a `UInt64`, such as a sequence number.
  ///
  /// - Parameter name: The argument's name.
  /// - Returns: The number, or `nil` when absent.
  /// - Throws: `UsageError` when the value is negative or not a whole number.
  func uint64(_ name: String) throws(UsageError) -> UInt64? {
    try parse(name, expecting: "expected a non-negative whole number") { UInt64($0) }
  }

  /// The value of an argument, which must be one of a fixed set of words.
  ///
  /// The error lists the choices the way swift-argument-parser lists an enumeration's values:
  /// `. Please provide one of 'json', 'text' or 'csv'.`, or a bulleted list for six or more.
  ///
  /// - Parameters:
  ///   - name: The argument's name.
  ///   - choices: The accepted values.
  /// - Returns: The value, or `nil` when absent.
  /// - Throws: `UsageError` listing the choices when the value is not one of them.
  func choice(_ name: String, from choices: [String]) throws(UsageError) -> String? {
    try convertArgument(name, reason: Self.listing(choices)) { choices.contains($0) ? $0 : nil }
      .last
  }

  /// The value of an argument, converted by a closure.
  ///
  /// - Parameters:
  ///   - name: The argument's name, such as `"position"`.
  ///   - expectation: What a valid value looks like, after the colon in the error message,
  ///     such as `expected a whole number`.
  ///   - transform: Converts the text, returning `nil` when it is invalid.
  /// - Returns: The converted value, or `nil` when absent.
  /// - Throws: `UsageError` when `transform` returns `nil`.
  func parse<Value>(
    _ name: String, expecting expectation: String, _ transform: (String) -> Value?
  ) throws(UsageError) -> Value? {
    try convertArgument(name, reason: expectation.isEmpty ? "" : ": \(expectation)", transform)
      .last
  }

  // MARK: Conversion

  private func convertArgument<Value>(
    _ name: String, reason: String, _ transform: (String) -> Value?
  ) throws(UsageError) -> [Value] {
    try convert(arguments(name), reason: reason, transform) { text, reason in
      let argument = argumentKey(name).argument
      return .invalidValue(text, for: argument.label, reason: reason, help: argument.help)
    }
  }

  /// Converts every value, throwing the error `invalid` makes for the first one `transform`
  /// rejects; `reason` follows the quoted label in the error message.
  private func convert<Value>(
    _ texts: [String], reason: String, _ transform: (String) -> Value?,
    invalid: (String, String) -> UsageError
  ) throws(UsageError) -> [Value] {
    var result: [Value] = []
    for text in texts {
      guard let value = transform(text) else { throw invalid(text, reason) }
      result.append(value)
    }
    return result
  }

  private func invalidValue(_ text: String, for declared: Option, reason: String) -> UsageError {
    let (key, option) = optionKey(declared)
    // Name the option the way it was typed, as swift-argument-parser does; a default
    // value was typed by nobody, so it is named by its preferred name.
    let typedName = parsedValues.options[key]?.typedName ?? option.preferredName
    return .invalidValue(
      text, for: "\(typedName) <\(option.valueName ?? "")>", reason: reason, help: option.help)
  }

  /// The list of valid values after an invalid one, worded as in swift-argument-parser's
  /// `formattedValueList` (`Usage/UsageGenerator.swift`).
  static func listing(_ choices: [String]) -> String {
    guard !choices.isEmpty else { return "" }
    if choices.count >= 6 {
      return ". Please provide one of the following:\n"
        + choices.map { "  - \($0)" }.joined(separator: "\n")
    }
    let quoted = choices.map { "'\($0)'" }
    let list =
      quoted.count <= 2
      ? quoted.joined(separator: " and ")
      : quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
    return ". Please provide one of \(list)."
  }

  // MARK: Lookup

  /// Every value given for a valued option, in order; `[defaultValue]` when none was given.
  private func texts(_ declared: Option) -> [String] {
    let (key, option) = optionKey(declared)
    precondition(!option.isFlag, "'\(option.preferredName)' is declared as a flag")
    if let given = parsedValues.options[key] {
      return given.values
    }
    return option.defaultValue.map { [$0] } ?? []
  }

  /// Where the parser keeps the values of a declared option, and the option as the command
  /// declares it (its help may differ from a shared declaration's).
  private func optionKey(_ declared: Option) -> (key: ParsedValues.Key, option: Option) {
    let name = declared.preferredName
    for depth in commands.indices.reversed() {
      if let option = commands[depth].options.first(where: { $0.names.contains(name) }) {
        return (ParsedValues.Key(depth: depth, name: option.preferredName), option)
      }
    }
    preconditionFailure("'\(commandPath.joined(separator: " "))' declares no option '\(name)'")
  }

  private func argumentKey(_ name: String) -> (key: ParsedValues.Key, argument: Argument) {
    for depth in commands.indices.reversed() {
      if let argument = commands[depth].arguments.first(where: { $0.name == name }) {
        return (ParsedValues.Key(depth: depth, name: name), argument)
      }
    }
    preconditionFailure("'\(commandPath.joined(separator: " "))' declares no argument '\(name)'")
  }
}

/// What the parser found on the command line, keyed by where each option or argument is
/// declared.
struct ParsedValues: Sendable {
  /// An option or argument of one command in the stack.
  struct Key: Hashable, Sendable {
    /// The position of the declaring command in the stack; 0 is the root.
    var depth: Int
    /// The option's preferred name or the argument's name.
    var name: String
  }

  /// The values given for one valued option.
  struct OptionValues: Sendable {
    /// Every value given, in order; just the last one for a non-repeating option.
    var values: [String]
    /// The name as typed the last time, such as `-f`, for error messages.
    var typedName: String
  }

  var options: [Key: OptionValues] = [:]
  var flags: Set<Key> = []
  var arguments: [Key: [String]] = [:]
}
