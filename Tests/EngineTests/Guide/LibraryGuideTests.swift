// The guide's one import: Engine re-exports Events and Projections.
import Engine
import Foundation
import Testing

/// The README's "Using the engine as a library" example, compiled and run, so the guide cannot
/// drift from the API. Keep the two in step.
@Suite struct LibraryGuideTests {
  @Test func theReadmeExampleRunsAsWritten() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("guide-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("events.jsonl").path

    // --- README example begins (after its `let path`) ---
    let log = try EventLog(path: path)
    let who = EventMetadata(actor: "ana", reason: "met at the expo")

    // A domain command: the stream is read, the Decider decides, the events are appended with
    // the version read as the expected version (and synced) before `handle` returns.
    let kermit = try ContactRecord(id: ContactID("9"), name: "Kermit the Frog")
    _ = try log.handle(.addContact(kermit), with: ContactDecider.self, metadata: who)
    let result = try log.handle(
      .favoriteContact(id: ContactID("9")), with: ContactDecider.self, metadata: who)
    print(result.events.map(\.type))  // ["ContactFavorited"]

    // Read models, now or as they were at any seq.
    let replayer = Replayer(reader: LogReader(path: path))
    let now = try replayer.readModels(at: .end).models
    let before = try replayer.readModels(at: .sequence(1)).models
    for section in now.contacts.sections {
      print(section.title, section.contacts.map(\.displayName))
    }
    // Favorite Contacts ["⭐️ Kermit the Frog"]
    // Other Contacts []
    print(before.contacts.sections.map(\.contacts.count))  // [0, 1]
    // --- README example ends ---

    #expect(result.events.map(\.type) == ["ContactFavorited"])
    #expect(now.contacts.sections.map(\.title) == ["Favorite Contacts", "Other Contacts"])
    #expect(
      now.contacts.sections.map { $0.contacts.map(\.displayName) } == [["⭐️ Kermit the Frog"], []])
    #expect(before.contacts.sections.map(\.contacts.count) == [0, 1])
  }
}
