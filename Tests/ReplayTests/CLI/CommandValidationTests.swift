import Testing

@testable import replay

@Suite struct CommandValidationTests {
  @Test func sampleTreeIsValid() {
    #expect(SampleCommands.root.configurationProblems(hasVersion: true) == [])
  }

  @Test func reportsEveryMistakeWithItsCommandPath() {
    let broken = Command(
      name: "tool", abstract: "",
      subcommands: [
        Command(
          name: "sub", abstract: "",
          arguments: [
            Argument(name: "many", help: "", isRepeating: true),
            Argument(name: "later", help: "", isOptional: true),
            Argument(name: "needed", help: ""),
          ],
          options: [
            Option(names: ["--log"], valueName: "path", help: ""),
            Option(names: ["-l", "--log"], valueName: "path", help: ""),
            Option(names: ["-h"], valueName: nil, help: ""),
            Option(names: ["--version"], valueName: nil, help: ""),
            Option(names: ["log"], valueName: "a b", help: ""),
            Option(names: ["--quiet"], valueName: nil, help: "", isRequired: true),
            Option(names: ["--to"], valueName: "p", help: "", defaultValue: "x", isRequired: true),
          ]),
        Command(name: "help", abstract: ""),
        Command(name: "sub", abstract: ""),
      ])
    #expect(
      broken.configurationProblems(hasVersion: true) == [
        "'tool sub': '--log' is declared twice",
        "'tool sub': '-h' is built in",
        "'tool sub': '--version' is built in",
        "'tool sub': 'log' must be '-' and one letter, or '--' and a word",
        "'tool sub': 'log' needs a value name without spaces",
        "'tool sub': the flag '--quiet' cannot be required, repeating or have a default value",
        "'tool sub': the required option '--to' cannot have a default value or be hidden",
        "'tool sub': only the last argument can be repeating, not '<many>'",
        "'tool sub': the required argument '<needed>' follows an optional one",
        "'tool': the subcommand 'help' is built in",
        "'tool': the subcommand 'sub' is declared twice",
      ])
  }

  @Test func versionIsOnlyReservedWhenThereIsAVersion() {
    let command = Command(
      name: "tool", abstract: "", options: [.flag(["--version"], help: "")])
    #expect(command.configurationProblems(hasVersion: false) == [])
  }
}
