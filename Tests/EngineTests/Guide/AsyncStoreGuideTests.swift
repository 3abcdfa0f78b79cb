// docs/LIBRARY.md's examples, compiled and run with the guide's one import.
import Engine
import Foundation
import Testing

/// The library guide's store and live examples, as written there. Keep the two in step.
@Suite struct AsyncStoreGuideTests {
  @Test(.timeLimit(.minutes(1))) func theGuideExamplesRunAsWritten() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("guide-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let logURL = directory.appendingPathComponent("events.jsonl")

    // --- LIBRARY.md: the store ---
    let store = try await EventStore(path: logURL.path)  // the file is created by the first append
    let who = EventMetadata(actor: "ana", reason: "met at the expo")

    // A domain command; the command picks its Decider (ContactCommand → ContactDecider).
    let kermit = try ContactRecord(id: ContactID("9"), name: "Kermit the Frog")
    try await store.handle(ContactCommand.addContact(kermit), metadata: who)
    let result = try await store.handle(
      ContactCommand.favoriteContact(id: ContactID("9")), metadata: who)
    print(result.events.map(\.type))  // ["ContactFavorited"]
    print(result.noChangeReason ?? "changed")  // why nothing was appended, when nothing was

    // Read models now, or as they were at a seq or a time.
    let now = try await store.readModels()
    let before = try await store.readModels(at: .sequence(1))
    print(now.contacts.sections.map(\.title))  // ["Favorite Contacts", "Other Contacts"]

    // Typed events of one stream, and its version.
    let (events, version) = try await store.events(inStream: "contact-9", as: ContactDecider.self)
    // --- end ---

    #expect(result.events.map(\.type) == ["ContactFavorited"])
    #expect(now.contacts.sections.map(\.title) == ["Favorite Contacts", "Other Contacts"])
    #expect(before.contacts.sections.map(\.contacts.count) == [0, 1])
    #expect(events.count == 2)
    #expect(version == 2)
    let again = try await store.handle(ContactCommand.favoriteContact(id: ContactID("9")))
    #expect(again.events.isEmpty)
    #expect(again.noChangeReason != nil)

    // --- LIBRARY.md: subscriptions (the bookmark kept in a variable here) ---
    var lastHandled: Int64 = 0
    var handled: [String] = []
    for try await event in store.subscribe(
      from: .afterSequence(lastHandled), filter: EventFilter(categories: ["contact"]))
    {
      handled.append(event.type)
      lastHandled = event.sequence  // resume from here after a restart
      if lastHandled == 2 { break }
    }
    #expect(handled == ["ContactAdded", "ContactFavorited"])

    // --- LIBRARY.md: read models that follow the log ---
    var screens: [[String]] = []
    var updates = store.updates(of: [ContactList.name]).makeAsyncIterator()
    while let update = try await updates.next() {
      screens.append(update.models.contacts.sections[0].contacts.map(\.displayName))
      if screens.count == 1 {
        try await store.handle(ContactCommand.unfavoriteContact(id: ContactID("9")))
      } else {
        break
      }
    }
    #expect(screens == [["⭐️ Kermit the Frog"], []])
  }
}
