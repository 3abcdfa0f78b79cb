import Events
import Foundation
import Synchronization
import Testing

@testable import Engine
@testable import Postgres

/// `EventStore(postgresURL:)`: the file store's calls and behaviour over a log kept in
/// PostgreSQL, with other stores and other processes appending to it, and the server going
/// away.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresEventStoreTests {
  /// A server of the test's own with the schema installed.
  private static func preparedServer() throws -> PostgresTestServer {
    let server = try PostgresTestServer()
    _ = try MessageStoreSchema.install(on: PostgresConnection(url: server.url()))
    return server
  }

  /// A server with the schema, a store over it, and one event in it (Ohio added).
  private static func storeWithOneEvent() async throws -> (PostgresTestServer, EventStore) {
    let server = try preparedServer()
    let store = try await EventStore(postgresURL: server.url())
    try await store.handle(USStateCommand.addState(StateName("Ohio")))
    return (server, store)
  }

  /// The same commands, in the same order, on any store.
  private static func runCommands(on store: EventStore) async throws {
    let who = EventMetadata(actor: "ana", reason: "test")
    try await store.handle(USStateCommand.addState(StateName("Ohio")), metadata: who)
    try await store.handle(
      USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43001")))
    try await store.handle(
      USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43002")))
    let place = try LocationID("84e0c359-1e8a-434a-963a-613771dbe2c9")
    try await store.handle(
      LocationCommand.addLocation(
        LocationRecord(
          id: place, name: "Pond", coordinate: Coordinate(latitude: 40, longitude: -83))))
    try await store.handle(
      USStateCommand.modifyZipCode(
        state: StateName("Ohio"), from: ZipCode("43002"), to: ZipCode("43003")))
    try await store.handle(USStateCommand.addState(StateName("Iowa")), metadata: who)
    try await store.handle(LocationCommand.renameLocation(id: place, name: "Big pond"))
    try await store.handle(
      ZooCommand.insertAnimal(
        id: AnimalID("user-1"), name: "Ada", description: "a tortoise", picturePath: nil))
    try await store.handle(
      USStateCommand.removeZipCode(state: StateName("Ohio"), zipCode: ZipCode("43001")))
    let refused = try await store.handle(
      LocationCommand.renameLocation(id: place, name: "Big pond"))
    #expect(refused.events.isEmpty && refused.noChangeReason != nil)
    try await store.append(
      [ProposedEvent(type: "StateAdded", data: Array(#"{"state":"Utah"}"#.utf8))],
      to: "state-Utah", expectedVersion: .noStream)
  }

  @Test(.timeLimit(.minutes(2))) func theSameCommandsGiveTheSameReadModelsAsAFile() async throws {
    let server = try Self.preparedServer()
    defer { try? server.stop(removing: true) }
    try await withAsyncTemporaryDirectory { directory in
      try await Self.compare(fileAt: directory + "/events.jsonl", with: server.url())
    }
  }

  /// `theSameCommandsGiveTheSameReadModelsAsAFile` with its folder.
  private static func compare(fileAt path: String, with url: String) async throws {
    let file = try await EventStore(
      path: path, configuration: testConfiguration())
    let database = try await EventStore(
      postgresURL: url, configuration: testConfiguration())
    try await Self.runCommands(on: file)
    try await Self.runCommands(on: database)

    #expect(file.log != nil && database.log == nil)
    #expect(database.path == url)
    let end = try await database.readModels()
    #expect(end == (try await file.readModels()))
    #expect(end.zipCodes.states.count == 3)
    #expect(end.locations != ReadModels().locations && end.animals != ReadModels().animals)
    for sequence in Int64(0)...10 {
      let fromDatabase = try await database.readModels(at: ReplayPoint.sequence(sequence))
      let fromFile = try await file.readModels(at: ReplayPoint.sequence(sequence))
      #expect(fromDatabase == fromFile, "at seq \(sequence)")
    }
    #expect(
      try await database.readModels(at: .instant(Timestamp(millisecondsSince1970: 1)))
        == ReadModels())
    // From a checkpoint of `replay_checkpoints`: the same models.
    #expect(try MessageStoreLog(url: url).saveCheckpoint(at: .sequence(4)) == 4)
    let afterCheckpoint = try await database.readModels(at: ReplayPoint.sequence(6))
    #expect(afterCheckpoint == (try await file.readModels(at: ReplayPoint.sequence(6))))
    #expect(try await database.readModels() == end)
    // A seq past the end is refused, as on the file.
    await #expect(throws: EngineError.self) { try await database.readModels(at: .sequence(99)) }

    let typed = try await database.events(inStream: "state-Ohio", as: USStateDecider.self)
    let typedFromFile = try await file.events(inStream: "state-Ohio", as: USStateDecider.self)
    #expect(typed.events == typedFromFile.events && typed.version == 5)
    let stream = "location-84e0c359-1e8a-434a-963a-613771dbe2c9"
    let recorded = try await database.recordedEvents(inStream: stream)
    #expect(recorded.events.map(\.type) == ["LocationAdded", "LocationRenamed"])
    #expect(recorded.events == (try await file.recordedEvents(inStream: stream)).events)
  }

  @Test func upcastersBringAnAppsOwnTypesToTheirNewestVersion() async throws {
    let server = try Self.preparedServer()
    defer { try? server.stop(removing: true) }
    let store = try await EventStore(
      postgresURL: server.url(), upcasters: try PayloadUpcastersTests.upcasters())
    try await store.append(
      [
        ProposedEvent(type: "NoteAdded", schemaVersion: 1, data: Array(#"{"body":"a"}"#.utf8)),
        ProposedEvent(type: "NoteAdded", schemaVersion: 3, data: Array(#"{"text":"c"}"#.utf8)),
      ], to: "note-1")
    let (events, version) = try await store.recordedEvents(inStream: "note-1")
    #expect(version == 2 && events.map(\.schemaVersion) == [3, 3])
    #expect(
      events.map { String(decoding: $0.data, as: UTF8.self) } == [
        #"{"text":"a","pinned":false}"#, #"{"text":"c"}"#,
      ])
    // The rows keep the lines as written.
    #expect(
      try server.psql("SELECT data->>'body' FROM message_store.messages WHERE position = 0")
        .trimmingCharacters(in: .whitespacesAndNewlines) == "a")
  }

  /// A store that opened a contact's sealed personal data reads it as erased once another
  /// writer erased the contact: the keys are not kept past a read.
  @Test(.timeLimit(.minutes(2))) func aContactErasedElsewhereReadsAsErased() async throws {
    let server = try Self.preparedServer()
    defer { try? server.stop(removing: true) }
    let url = server.url()
    let store = try await EventStore(postgresURL: url)
    let data =
      #"{"id":"7","name":"Ana Lima","isFavorite":false,"emailAddress":"ana@example.com","source":"t"}"#
    try await store.append(
      [ProposedEvent(type: ContactAdded.eventType, data: Array(data.utf8))], to: "contact-7",
      expectedVersion: .noStream)
    let name = { () async throws -> String? in
      guard
        case .added(let added) = try await store.events(
          inStream: "contact-7", as: ContactDecider.self
        ).events.first
      else { return nil }
      return added.record.name
    }
    #expect(try await name() == "Ana Lima")
    let other = try MessageStoreWriter(url: url)
    defer { other.close() }
    try other.eraseContact(ContactID("7"), metadata: EventMetadata(actor: "dpo"))
    #expect(try await name() == ContactRecord.erasedName)
    let contacts = try await store.readModels(models: [ContactList.name]).contacts
    #expect(!String(describing: contacts).contains("Ana Lima"))
  }

  @Test(.timeLimit(.minutes(2))) func aSubscriptionSeesAnotherStoreAndAnotherProcess()
    async throws
  {
    let server = try Self.preparedServer()
    defer { try? server.stop(removing: true) }
    let url = server.url()
    let reader = try await EventStore(postgresURL: url)
    let writer = try await EventStore(postgresURL: url)
    try await writer.handle(USStateCommand.addState(StateName("Ohio")))
    let replay = try #require(Self.replayExecutable, "the replay binary is not built")

    var seen: [String] = []
    var events = reader.subscribe(
      from: .beginning, filter: EventFilter(categories: ["state"])
    ).makeAsyncIterator()
    while let event = try await events.next() {
      seen.append("\(event.sequence) \(event.stream) \(event.type)")
      if seen.count == 1 {
        try await writer.handle(
          USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43001")))
      } else if seen.count == 2 {
        let appended = try Self.run(
          replay,
          [
            "append", "--log", url, "--stream", "state-Iowa", "--type", "StateAdded", "--data",
            #"{"state":"Iowa"}"#,
          ])
        try #require(appended == 0)
      } else {
        break
      }
    }
    #expect(
      seen == ["1 state-Ohio StateAdded", "2 state-Ohio ZipCodeAdded", "3 state-Iowa StateAdded"])
  }

  @Test(.timeLimit(.minutes(2))) func twoStoresWritingAtOnceMakeOneLogWithoutAGap()
    async throws
  {
    // Ohio first, then 20 states from each store.
    let (server, reader) = try await Self.storeWithOneEvent()
    defer { try? server.stop(removing: true) }
    let url = server.url()
    let collected = Task {
      var sequences: [Int64] = []
      for try await event in reader.subscribe(from: .beginning) {
        sequences.append(event.sequence)
        if sequences.count == 41 { break }
      }
      return sequences
    }
    func addStates(named prefix: String) async throws {
      let store = try await EventStore(postgresURL: url)
      for number in 1...20 {
        try await store.handle(USStateCommand.addState(StateName("\(prefix)\(number)")))
      }
    }
    async let first: Void = addStates(named: "Alpha")
    async let second: Void = addStates(named: "Beta")
    _ = try await (first, second)
    #expect(try await collected.value == Array(1...41))
    let models = try await reader.readModels()
    #expect(models.zipCodes.states.count == 41)
  }

  @Test(.timeLimit(.minutes(2))) func readModelUpdatesFollowEachAppend() async throws {
    let server = try Self.preparedServer()
    defer { try? server.stop(removing: true) }
    let store = try await EventStore(postgresURL: server.url())
    let other = try await EventStore(postgresURL: server.url())
    try await store.handle(USStateCommand.addState(StateName("Ohio")))
    var seen: [(sequence: Int64, count: Int, zipCodes: Int)] = []
    for try await update in store.updates(of: [ZipCodeList.name]) {
      let zipCodes = update.models.zipCodes.states.first?.zipCodes.count ?? -1
      seen.append((update.sequence, update.newEventCount, zipCodes))
      if seen.count == 4 { break }
      let next = ["43001", "43002", "43003"][seen.count - 1]
      // From this store and from another one.
      try await (seen.count == 2 ? other : store).handle(
        USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode(next)))
    }
    #expect(seen.map(\.sequence) == [1, 2, 3, 4])
    #expect(seen.map(\.count) == [0, 1, 1, 1])
    #expect(seen.map(\.zipCodes) == [0, 1, 2, 3])
  }

  @Test func aConflictThroughTwoStoresIsAVersionConflict() async throws {
    let server = try Self.preparedServer()
    defer { try? server.stop(removing: true) }
    let first = try await EventStore(postgresURL: server.url())
    let second = try await EventStore(postgresURL: server.url())
    try await first.handle(USStateCommand.addState(StateName("Ohio")))
    try await first.handle(
      USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43001")),
      expectedVersion: .exactly(1))
    do {
      try await second.handle(
        USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43002")),
        expectedVersion: .exactly(1))
      Issue.record("a stale expected version was accepted")
    } catch EngineError.versionConflict(let stream, let expected, let actual) {
      #expect(stream == "state-Ohio" && expected == .exactly(1) && actual == 2)
    }
    do {
      try await second.append(
        [ProposedEvent(type: "StateAdded", data: Array(#"{"state":"Ohio"}"#.utf8))],
        to: "state-Ohio", expectedVersion: .noStream)
      Issue.record("an append to a stream that exists was accepted as a new stream")
    } catch EngineError.versionConflict(_, _, let actual) {
      #expect(actual == 2)
    }
    // Nothing of either was written; without an expected version, the second store decides
    // again on the stream as it is.
    let retried = try await second.handle(
      USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43002")))
    #expect(retried.versionDecidedOn == 2 && retried.events.map(\.sequence) == [3])
  }

  @Test(.timeLimit(.minutes(2))) func theServerStoppingEndsASubscriptionWithAnError()
    async throws
  {
    let (server, store) = try await Self.storeWithOneEvent()
    defer { try? server.stop(removing: true) }
    var events = store.subscribe(from: .beginning).makeAsyncIterator()
    #expect(try await events.next()?.sequence == 1)
    var updates = store.updates().makeAsyncIterator()
    #expect(try await updates.next()?.sequence == 1)
    try server.stop()
    let lost = await #expect(throws: PostgresError.self) { _ = try await events.next() }
    #expect(
      { if case .connectionLost = lost { true } else { false } }(), "\(String(describing: lost))")
    #expect(lost?.description.contains("went away while it was followed") == true)
    await #expect(throws: PostgresError.self) { _ = try await updates.next() }

    // Writing fails while the server is away, and works again once it is back.
    await #expect(throws: PostgresError.self) {
      try await store.handle(USStateCommand.addState(StateName("Iowa")))
    }
    try server.start()
    let again = try await store.handle(USStateCommand.addState(StateName("Iowa")))
    #expect(again.events.map(\.sequence) == [2])
  }

  @Test(.timeLimit(.minutes(2))) func cancellingTheConsumerEndsSubscriptionsAndUpdates()
    async throws
  {
    let (server, store) = try await Self.storeWithOneEvent()
    defer { try? server.stop(removing: true) }
    let received = Received()
    let events = Task {
      for try await _ in store.subscribe(from: .beginning) {
        received.counts.withLock { $0.events += 1 }
      }
    }
    let updates = Task {
      for try await _ in store.updates() { received.counts.withLock { $0.updates += 1 } }
    }
    // Both are waiting for more once each has its first element.
    while received.counts.withLock({ $0.events < 1 || $0.updates < 1 }) {
      try await Task.sleep(for: .milliseconds(20))
    }
    events.cancel()
    updates.cancel()
    // Each ends (within the time limit) instead of waiting for the next event.
    _ = await events.result
    _ = await updates.result
    try await store.handle(USStateCommand.addState(StateName("Iowa")))
    #expect(received.counts.withLock { $0.events == 1 && $0.updates == 1 })
  }

  /// docs/LIBRARY.md's "A store in PostgreSQL" example, as written there (its URL aside).
  /// Keep the two in step.
  @Test(.timeLimit(.minutes(1))) func theGuideExampleRunsAsWritten() async throws {
    let server = try Self.preparedServer()
    defer { try? server.stop(removing: true) }
    var printed: [String] = []
    func print(_ items: Any...) {
      printed.append(items.map { "\($0)" }.joined(separator: " "))
    }

    // --- LIBRARY.md: a store in PostgreSQL ---
    let store = try await EventStore(postgresURL: server.url())
    try await store.handle(USStateCommand.addState(StateName("Ohio")))
    try await store.handle(
      USStateCommand.addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43001")))
    let models = try await store.readModels()
    print(models.zipCodes.states.map(\.zipCodes))  // [[43001]]
    for try await update in store.updates(of: [ZipCodeList.name]) {
      print(update.sequence, update.models.zipCodes.states.count)  // 2 1: the models at the end
      break
    }
    for try await event in store.subscribe(from: .beginning) {
      print("seq \(event.sequence): \(event.type) in \(event.stream)")
      if event.sequence == 2 { break }
    }
    // --- end ---

    #expect(
      printed == [
        "[[43001]]", "2 1", "seq 1: StateAdded in state-Ohio", "seq 2: ZipCodeAdded in state-Ohio",
      ])
  }

  @Test func aServerNotThereBadCredentialsAndNoSchemaAreClearErrors() async throws {
    let server = try PostgresTestServer()
    defer { try? server.stop(removing: true) }
    let noSchema = try #require(await Self.openingError(server.url()))
    #expect({ if case .schemaMissing = noSchema { true } else { false } }(), "\(noSchema)")
    #expect(noSchema.description.contains("run 'replay pg init <url>' first"))
    let refused = try #require(
      await Self.openingError(server.url(user: "scram_user", password: "wrong")))
    #expect({ if case .authenticationFailed = refused { true } else { false } }(), "\(refused)")
    #expect(!refused.description.contains("wrong"))
    try server.stop()
    let notThere = try #require(await Self.openingError(server.url()))
    #expect({ if case .connectionFailed = notThere { true } else { false } }(), "\(notThere)")
    #expect(notThere.description.contains("cannot connect to PostgreSQL at"))
  }

  /// The error opening a store at `url` throws; nil when it opens, or throws another error.
  private static func openingError(_ url: String) async -> PostgresError? {
    do {
      _ = try await EventStore(postgresURL: url)
      return nil
    } catch {
      return error as? PostgresError
    }
  }

  /// What the cancelled consumers received.
  private final class Received: Sendable {
    let counts = Mutex<(events: Int, updates: Int)>((0, 0))
  }

  // MARK: Another process

  /// The built `replay` binary: `$REPLAY_BINARY`, else the one beside the test bundle.
  private static let replayExecutable: String? = {
    if let path = ProcessInfo.processInfo.environment["REPLAY_BINARY"], !path.isEmpty {
      return path
    }
    let folders = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
    ]
    return folders.map { $0.appendingPathComponent("replay").path }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }()

  /// Runs `executable` with `arguments` and waits: its exit status.
  private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }
}
