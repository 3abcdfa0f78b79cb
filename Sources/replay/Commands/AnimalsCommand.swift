import Engine
import Events
import Postgres

/// `replay animals insert|remove`.
enum AnimalsCommand {
  static let command = Command(
    name: "animals",
    abstract: "Insert and remove zoo animals.",
    discussion: """
      Imported animals have ids zoo-<source id>; inserted ones get user-<n>, n one more than the \
      highest ever inserted, so an id is never reused and never collides with an import.
      """,
    subcommands: [
      Command(
        name: "insert", abstract: "Insert an animal.",
        options: [
          name, description, picture,
        ] + DomainCommandRunner.options,
        run: insert),
      DomainCommandRunner.verb(
        "remove", abstract: "Remove an animal (imported or inserted).",
        arguments: [Argument(name: "id", help: "The animal's id: zoo-<n> or user-<n>.")],
        decider: ZooDecider.self
      ) { invocation in
        .removeAnimal(
          id: try invocation.domainValue("id") { text throws(EventsError) in try AnimalID(text) })
      },
    ])

  static let name = TextOption(
    names: ["--name"], valueName: "name", help: "The animal's name.", isRequired: true)
  static let description = TextOption(
    names: ["--description"], valueName: "text", help: "What to say about it.",
    defaultValue: "")
  static let picture = TextOption(
    names: ["--picture"], valueName: "path", help: "A local picture file's path.")

  /// Picks the next `user-<n>` and inserts; if another writer takes that number first, picks
  /// again.
  static func insert(_ invocation: ParsedInvocation) throws -> ExitCode {
    let prefix = "animal-user-"
    let storage: any EventStorage
    let streamNames: () throws -> [String]
    let database = try invocation.openPostgresWriter()
    defer { database?.close() }
    if let database {
      storage = database
      streamNames = { try database.streamNames(withPrefix: prefix) }
    } else {
      let log = try invocation.openLogForWriting()
      storage = log
      streamNames = {
        try log.refresh()
        return try log.streamNames(withPrefix: prefix)
      }
    }
    let name = invocation.requiredValue(AnimalsCommand.name)
    let description = invocation[AnimalsCommand.description] ?? ""
    let picture = invocation[AnimalsCommand.picture]
    for _ in 0..<5 {
      let highest = try streamNames().compactMap { Int($0.dropFirst(prefix.count)) }.max() ?? 0
      let command = ZooCommand.insertAnimal(
        id: .inserted(number: highest + 1), name: name, description: description,
        picturePath: picture)
      do {
        let result = try storage.handle(
          command, with: ZooDecider.self, metadata: invocation.metadata, expectedVersion: .noStream)
        DomainCommandRunner.report(result, invocation)
        return .success
      } catch EngineError.versionConflict {
        continue
      } catch let error as EventsError {
        throw invocation.inCommandLineWords(error)
      }
    }
    throw EngineError.lockTimeout(path: invocation.logName, seconds: 0)
  }
}
