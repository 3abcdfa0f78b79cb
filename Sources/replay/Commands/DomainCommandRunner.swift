import Engine
import Events
import Postgres

/// Runs a domain command through its Decider and prints what it appended, or why nothing.
enum DomainCommandRunner {
  /// `--expected-version` for domain verbs: when absent, the version the command read is
  /// expected (and a race with another writer is decided again).
  static let expectedVersion = ValueOption(
    names: ["--expected-version"], valueName: "version",
    help: "Fail unless the entity's stream is at this version: a number or 'no-stream'.",
    defaultDescription: "the version read, re-decided if another writer races",
    expecting: "expected a whole number, 'no-stream' or 'any'"
  ) { ExpectedVersion($0) }

  /// The options every domain verb takes, after its own.
  static let options: [any OptionDeclaration] =
    [expectedVersion] + CommonOptions.audit + CommonOptions.writing + [
      CommonOptions.json.withHelp("Print the appended envelopes as JSON.")
    ]

  /// `--latitude` of a location, read with `--longitude` by `ParsedInvocation.coordinate()`.
  static let latitude = ValueOption(
    names: ["--latitude"], valueName: "degrees", help: "New latitude.", isRequired: true,
    expecting: "expected a decimal number of degrees", DecimalNumber.parse)
  /// `--longitude` of a location.
  static let longitude = ValueOption(
    names: ["--longitude"], valueName: "degrees", help: "New longitude.", isRequired: true,
    expecting: "expected a decimal number of degrees", DecimalNumber.parse)

  /// A domain verb: the arguments and `options` make one command (`command`), which `decider`
  /// decides and `run` appends; it takes the shared `options` after its own.
  static func verb<D: Decider & SendableMetatype>(
    _ name: String, abstract: String, discussion: String? = nil, arguments: [Argument] = [],
    options: [any OptionDeclaration] = [], decider: D.Type,
    _ command: @escaping @Sendable (ParsedInvocation) throws -> D.Command
  ) -> Command {
    Command(
      name: name, abstract: abstract, discussion: discussion, arguments: arguments,
      options: options + Self.options,
      run: { invocation in try run(command(invocation), with: D.self, invocation) })
  }

  /// Decides `command` against the log and appends the result.
  static func run<D: Decider>(
    _ command: D.Command, with decider: D.Type, _ invocation: ParsedInvocation
  ) throws -> ExitCode {
    let expected = try invocation[expectedVersion]
    let database = try invocation.openPostgresWriter()
    defer { database?.close() }
    // The stream read and decided on, and the append, on the file or on the database.
    let storage: any EventStorage = try database ?? invocation.openLogForWriting()
    let result: CommandResult
    do {
      result = try storage.handle(
        command, with: decider, metadata: invocation.metadata, expectedVersion: expected)
    } catch let error as EventsError {
      throw invocation.inCommandLineWords(error)
    }
    report(result, invocation)
    return .success
  }

  /// Prints a command's result: one line per event, or the reason nothing was appended.
  static func report(_ result: CommandResult, _ invocation: ParsedInvocation) {
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.key("appended")
        writer.beginArray()
        for event in result.events { writer.rawValue(event.logLine.dropLast()) }
        writer.endArray()
        writer.member("noChangeReason", result.noChangeReason)
      }
      return
    }
    if let reason = result.noChangeReason {
      invocation.terminal.write("nothing appended: \(reason)\n")
      return
    }
    for event in result.events {
      invocation.terminal.write(
        "appended \(event.type) to \(event.stream) (seq \(event.sequence), version \(event.version))\n"
      )
    }
  }
}

extension ParsedInvocation {
  /// A Decider's rejection of a command's field, reworded to name the command line's command and
  /// its option or argument (`'replay locations add': '--name': ...`) instead of the Decider's
  /// internal command name (`'addLocation'`); other errors are returned unchanged.
  func inCommandLineWords(_ error: EventsError) -> any Error {
    guard case .invalidCommand(_, let field, let expected, let found) = error else { return error }
    let option = "--\(field)"
    let declaresArgument = commands.contains { $0.arguments.contains { $0.name == field } }
    let label = declaresOption(named: option) ? option : declaresArgument ? "<\(field)>" : field
    return InputError.invalid(
      "'\(commandPath.joined(separator: " "))': '\(label)': expected \(expected), found \(found)")
  }

  /// A required argument converted by a throwing domain constructor; its `EventsError`
  /// becomes an error naming the argument.
  func domainValue<Value>(
    _ name: String, _ make: (String) throws(EventsError) -> Value
  ) throws -> Value {
    try domainValue(requiredValue(name), label: "<\(name)>", make)
  }

  /// A required option converted by a throwing domain constructor.
  func domainValue<Value>(
    _ option: TextOption, _ make: (String) throws(EventsError) -> Value
  ) throws -> Value {
    try domainValue(requiredValue(option), label: "'\(option.option.preferredName)'", make)
  }

  /// An optional option converted by a throwing domain constructor.
  func optionalDomainValue<Value>(
    _ option: TextOption, _ make: (String) throws(EventsError) -> Value
  ) throws -> Value? {
    guard let text = self[option] else { return nil }
    return try domainValue(text, label: "'\(option.option.preferredName)'", make)
  }

  private func domainValue<Value>(
    _ text: String, label: String, _ make: (String) throws(EventsError) -> Value
  ) throws -> Value {
    do throws(EventsError) {
      return try make(text)
    } catch {
      // A well-formed value that breaks a domain rule is invalid data (exit 65), named here.
      throw InputError.invalid("\(label): \(Self.reason(error))")
    }
  }

  private static func reason(_ error: EventsError) -> String {
    if case .invalidValue(let expected, let found) = error {
      return "expected \(expected), found \(found)"
    }
    return error.description
  }

  /// A coordinate from `--latitude` and `--longitude`.
  func coordinate() throws -> Coordinate {
    let latitude = try requiredNumber(DomainCommandRunner.latitude)
    let longitude = try requiredNumber(DomainCommandRunner.longitude)
    do throws(EventsError) {
      return try Coordinate(latitude: latitude, longitude: longitude)
    } catch {
      throw InputError.invalid("invalid coordinate: \(Self.reason(error))")
    }
  }

  private func requiredNumber(_ option: ValueOption<Double>) throws -> Double {
    guard let value = try self[option] else {
      throw UsageError("Missing value for '\(option.option.preferredName) <degrees>'")
    }
    return value
  }
}
