extension Command {
  /// The mistakes in this command tree that would make parsing ambiguous or help wrong.
  ///
  /// `runCommandLine` asserts there are none; a test over the real tree catches them in CI.
  ///
  /// - Parameter hasVersion: Whether `--version` is built in, which reserves the name.
  /// - Returns: One line per problem, naming the command path; empty for a valid tree.
  func configurationProblems(hasVersion: Bool) -> [String] {
    problems(path: name, isRoot: true, hasVersion: hasVersion)
  }

  private func problems(path: String, isRoot: Bool, hasVersion: Bool) -> [String] {
    var problems: [String] = []
    func report(_ problem: String) {
      problems.append("'\(path)': \(problem)")
    }

    if !Self.isValidWord(name) {
      report("the command name '\(name)' must be a word not starting with '-'")
    }

    var reservedNames: Set = ["-h", "--help"]
    if hasVersion { reservedNames.insert("--version") }
    var seenNames: Set<String> = []
    for option in options {
      if option.names.isEmpty {
        report("an option has no names")
      }
      for optionName in option.names {
        if !Self.isValidOptionName(optionName) {
          report("'\(optionName)' must be '-' and one letter, or '--' and a word")
        }
        if reservedNames.contains(optionName) {
          report("'\(optionName)' is built in")
        }
        if !seenNames.insert(optionName).inserted {
          report("'\(optionName)' is declared twice")
        }
      }
      let label = option.preferredName
      if let valueName = option.valueName, !Self.isValidWord(valueName) {
        report("'\(label)' needs a value name without spaces")
      }
      if option.isFlag, option.isRequired || option.isRepeating || option.defaultValue != nil {
        report("the flag '\(label)' cannot be required, repeating or have a default value")
      }
      if option.isRequired, option.defaultValue != nil || option.isHidden {
        report("the required option '\(label)' cannot have a default value or be hidden")
      }
    }

    var seenArguments: Set<String> = []
    var hasOptionalArgument = false
    for (position, argument) in arguments.enumerated() {
      if !Self.isValidWord(argument.name) {
        report("the argument name '\(argument.name)' must be a word not starting with '-'")
      }
      if !seenArguments.insert(argument.name).inserted {
        report("the argument '<\(argument.name)>' is declared twice")
      }
      if argument.isRepeating, position != arguments.count - 1 {
        report("only the last argument can be repeating, not '<\(argument.name)>'")
      }
      if !argument.isOptional, hasOptionalArgument {
        report("the required argument '<\(argument.name)>' follows an optional one")
      }
      hasOptionalArgument = hasOptionalArgument || argument.isOptional
    }

    var seenSubcommands: Set<String> = []
    for subcommand in subcommands {
      if !seenSubcommands.insert(subcommand.name).inserted {
        report("the subcommand '\(subcommand.name)' is declared twice")
      }
      if isRoot, subcommand.name == CommandLineParser.helpCommandName {
        report("the subcommand 'help' is built in")
      }
      problems += subcommand.problems(
        path: "\(path) \(subcommand.name)", isRoot: false, hasVersion: hasVersion)
    }
    return problems
  }

  private static func isValidWord(_ word: String) -> Bool {
    !word.isEmpty && !word.hasPrefix("-") && !word.contains(where: \.isWhitespace)
  }

  private static func isValidOptionName(_ name: String) -> Bool {
    if name.hasPrefix("--") {
      let word = name.dropFirst(2)
      return !word.isEmpty && !word.hasPrefix("-")
        && word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
    guard name.count == 2, name.hasPrefix("-"), let letter = name.last else { return false }
    return letter.isASCII && letter.isLetter
  }
}
