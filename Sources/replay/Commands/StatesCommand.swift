import Engine
import Events

/// `replay states add` and `replay zipcodes add|modify|remove`.
enum StatesCommand {
  static let states = Command(
    name: "states",
    abstract: "Add states (for their zip codes).",
    subcommands: [
      verb(
        "add", abstract: "Add a state.",
        arguments: [Argument(name: "name", help: "The state's name, e.g. 'New York'.")]
      ) { invocation in
        .addState(
          try invocation.domainValue("name") { text throws(EventsError) in try StateName(text) })
      }
    ])

  static let zipCodes = Command(
    name: "zipcodes",
    abstract: "Add, modify and remove a state's zip codes.",
    discussion: """
      A zip code is 5 digits or ZIP+4 (12345-6789), and appears at most once in a state (the same \
      code may belong to several states).
      """,
    subcommands: [
      verb("add", abstract: "Add a zip code to a state.", arguments: [state, zip]) { invocation in
        .addZipCode(state: try stateName(invocation), zipCode: try zipCode("zip", invocation))
      },
      verb(
        "modify", abstract: "Change one of a state's zip codes; it keeps its place.",
        arguments: [state, zip, Argument(name: "new-zip", help: "The zip code to change it to.")]
      ) { invocation in
        .modifyZipCode(
          state: try stateName(invocation), from: try zipCode("zip", invocation),
          to: try zipCode("new-zip", invocation))
      },
      verb("remove", abstract: "Remove a zip code from a state.", arguments: [state, zip]) {
        invocation in
        .removeZipCode(state: try stateName(invocation), zipCode: try zipCode("zip", invocation))
      },
    ])

  /// A verb whose arguments make one `USStateCommand`.
  static func verb(
    _ name: String, abstract: String, arguments: [Argument],
    _ command: @escaping @Sendable (ParsedInvocation) throws -> USStateCommand
  ) -> Command {
    DomainCommandRunner.verb(
      name, abstract: abstract, arguments: arguments, decider: USStateDecider.self, command)
  }

  static let state = Argument(name: "state", help: "The state's name, e.g. California.")
  static let zip = Argument(name: "zip", help: "The zip code, e.g. 90001.")

  static func stateName(_ invocation: ParsedInvocation) throws -> StateName {
    try invocation.domainValue("state") { text throws(EventsError) in try StateName(text) }
  }

  static func zipCode(_ name: String, _ invocation: ParsedInvocation) throws -> ZipCode {
    try invocation.domainValue(name) { text throws(EventsError) in try ZipCode(text) }
  }
}
