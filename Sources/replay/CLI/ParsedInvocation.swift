/// The parsed command line handed to a command's `run` closure, with the terminal to write to.
///
/// Options are looked up by any of their names (`"--from"` or `"-f"`), positional arguments by
/// their name without brackets (`"stream"`). Options declared by a parent group are visible
/// too. Asking for a name the command does not declare is a programmer error and traps.
///
/// The typed accessors (`int(_:)`, `uint64(_:)`, `parse(_:expecting:_:)`, ...) take either
/// kind of name — a leading `-` marks an option — and throw a `UsageError` naming the
/// argument and the bad value:
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

  /// The value of an option: the last one given, else its `defaultValue`.
  ///
  /// - Note: swift-argument-parser keeps the last value when a non-repeating option is given
  ///   more than once (`ParsedValues.set` replaces the earlier value), and so do we.
  ///
  /// - Parameter name: Any of the option's names, such as `"--log"`.
  /// - Returns: The value, or `nil` when the option is absent and has no default.
  func value(_ name: String) -> String? {
    values(name).last
  }

  /// Every value given for an option, in order; `[defaultValue]` when none was given.
  ///
  /// - Parameter name: Any of the option's names, such as `"--tag"`.
  /// - Returns: The values.
  func values(_ name: String) -> [String] {
    let (key, option) = optionKey(name)
    precondition(!option.isFlag, "'\(name)' is a flag; read it with flag(_:)")
    if let given = parsedValues.options[key] {
      return given.values
    }
    return option.defaultValue.map { [$0] } ?? []
  }

  /// Whether a flag was given.
  ///
  /// - Parameter name: Any of the flag's names, such as `"--verbose"`.
  /// - Returns: `true` when the flag appears on the command line.
  func flag(_ name: String) -> Bool {
    let (key, option) = optionKey(name)
    precondition(option.isFlag, "'\(name)' takes a value; read it with value(_:)")
    return parsedValues.flags.contains(key)
  }

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

  /// The value of a required option or argument, which the parser guarantees is present.
  ///
  /// - Parameter name: An option name (`"--log"`) or argument name (`"stream"`).
  /// - Returns: The value.
  func requiredValue(_ name: String) -> String {
    let value = name.hasPrefix("-") ? value(name) : argument(name)
    guard let value else {
      preconditionFailure("'\(name)' is neither required nor defaulted, so it may be absent")
    }
    return value
  }

  // MARK: Typed values

  /// The value of an option or argument as an `Int`.
  ///
  /// - Parameter name: An option name (`"--limit"`) or argument name (`"count"`).
  /// - Returns: The number, or `nil` when absent.
  /// - Throws: `UsageError` when the value is not a whole number.
  func int(_ name: String) throws(UsageError) -> Int? {
    try parse(name, expecting: "expected a whole number") { Int($0) }
  }

  /// The value of an option or argument as an `Int64`.
  ///
  /// - Parameter name: An option name or argument name.
  /// - Returns: The number, or `nil` when absent.
  /// - Throws: `UsageError` when the value is not a whole number that fits 64 bits.
  func int64(_ name: String) throws(UsageError) -> Int64? {
    try parse(name, expecting: "expected a whole number") { Int64($0) }
  }

  /// The value of an option or argument as a `UInt64`, such as a sequence number.
  ///
  /// - Parameter name: An option name or argument name.
  /// - Returns: The number, or `nil` when absent.
  /// - Throws: `UsageError` when the value is negative or not a whole number.
  func uint64(_ name: String) throws(UsageError) -> UInt64? {
    try parse(name, expecting: "expected a non-negative whole number") { UInt64($0) }
  }

  /// The value of an option or argument, which must be one of a fixed set of words.
  ///
  /// The error lists the choices the way swift-argument-parser lists an enumeration's values:
  /// `. Please provide one of 'json', 'text' or 'csv'.`, or a bulleted list for six or more.
  ///
  /// - Parameters:
  ///   - name: An option name or argument name.
  ///   - choices: The accepted values.
  /// - Returns: The value, or `nil` when absent.
  /// - Throws: `UsageError` listing the choices when the value is not one of them.
  func choice(_ name: String, from choices: [String]) throws(UsageError) -> String? {
    try convertAll(name, reason: Self.listing(choices)) { choices.contains($0) ? $0 : nil }.last
  }

  /// The value of an option or argument, converted by a closure.
  ///
  /// - Parameters:
  ///   - name: An option name (`"--from"`) or argument name (`"position"`).
  ///   - expectation: What a valid value looks like, after the colon in the error message,
  ///     such as `expected a whole number`.
  ///   - transform: Converts the text, returning `nil` when it is invalid.
  /// - Returns: The converted value, or `nil` when absent.
  /// - Throws: `UsageError` when `transform` returns `nil`.
  func parse<Value>(
    _ name: String, expecting expectation: String, _ transform: (String) -> Value?
  ) throws(UsageError) -> Value? {
    try parseAll(name, expecting: expectation, transform).last
  }

  /// Every value of an option or argument, converted by a closure.
  ///
  /// - Parameters:
  ///   - name: An option name or argument name.
  ///   - expectation: What a valid value looks like, such as `expected a whole number`.
  ///   - transform: Converts the text, returning `nil` when it is invalid.
  /// - Returns: The converted values, in order.
  /// - Throws: `UsageError` for the first value `transform` rejects.
  func parseAll<Value>(
    _ name: String, expecting expectation: String, _ transform: (String) -> Value?
  ) throws(UsageError) -> [Value] {
    try convertAll(name, reason: expectation.isEmpty ? "" : ": \(expectation)", transform)
  }

  /// Converts every value, throwing for the first one `transform` rejects; `reason` follows
  /// the quoted label in the error message.
  private func convertAll<Value>(
    _ name: String, reason: String, _ transform: (String) -> Value?
  ) throws(UsageError) -> [Value] {
    let texts = name.hasPrefix("-") ? values(name) : arguments(name)
    var result: [Value] = []
    for text in texts {
      guard let value = transform(text) else {
        throw invalidValue(text, for: name, reason: reason)
      }
      result.append(value)
    }
    return result
  }

  private func invalidValue(_ text: String, for name: String, reason: String) -> UsageError {
    if name.hasPrefix("-") {
      let (key, option) = optionKey(name)
      // Name the option the way it was typed, as swift-argument-parser does; a default
      // value was typed by nobody, so it is named by its preferred name.
      let typedName = parsedValues.options[key]?.typedName ?? option.preferredName
      return .invalidValue(
        text, for: "\(typedName) <\(option.valueName ?? "")>", reason: reason, help: option.help)
    }
    let argument = argumentKey(name).argument
    return .invalidValue(text, for: argument.label, reason: reason, help: argument.help)
  }

  /// The list of valid values after an invalid one, worded as in swift-argument-parser's
  /// `formattedValueList` (`Usage/UsageGenerator.swift`).
  private static func listing(_ choices: [String]) -> String {
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

  /// Whether the command (or a parent group) declares an option with this name, for code shared
  /// by commands with different options.
  ///
  /// - Parameter name: Any of the option's names, such as `"--id-seed"`.
  /// - Returns: `true` when reading the option is allowed.
  func declares(_ name: String) -> Bool {
    commands.contains { $0.options.contains { $0.names.contains(name) } }
  }

  private func optionKey(_ name: String) -> (key: ParsedValues.Key, option: Option) {
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
