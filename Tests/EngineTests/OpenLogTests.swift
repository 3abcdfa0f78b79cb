import Foundation
import Projections
import ReplayTestSupport
import Testing

@testable import Engine
@testable import Events

/// One owner of a log in a process (`OpenLog`): its writer and readers share it, and with it
/// one parse of the key store; it goes when nobody holds it.
@Suite struct OpenLogTests {
  static let kermit = ContactRecord(
    id: ContactID(unchecked: "14"), name: "Kermit the Frog", companyName: "Muppets",
    emailAddress: "kermit@muppets.example", phone: PhoneNumbers(work: "602-225-9544"))

  @Test func aLogsWriterAndReadersShareOneOwner() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let reader = LogReader(path: path)
      #expect(log.openLog === reader.openLog)
      #expect(log.reader.openLog === log.openLog)
      #expect(CheckpointStore(logPath: path).openLog === log.openLog)
      // Another log, or the same file spelled otherwise, is another owner.
      #expect(LogReader(path: directory + "/other.jsonl").openLog !== log.openLog)
      #expect(LogReader(path: directory + "/./events.jsonl").openLog !== log.openLog)
      // The files beside the log are named by the owner's `LogFiles`, and by nothing else.
      #expect(log.openLog.files.keyStorePath == KeyStore.path(forLog: path))
      #expect(log.openLog.files.indexPath == LogIndexFile.path(forLog: path))
      #expect(log.openLog.files.treePath == TreeFile.path(forLog: path))
      #expect(log.openLog.files.checkpointsPath == CheckpointStore(logPath: path).directory)
      #expect(log.openLog.files.quarantinePath == Quarantine.directory(forLog: path))
    }
  }

  @Test func anOwnerNobodyHoldsGoes() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      weak var held: OpenLog?
      do {
        let reader = LogReader(path: path)
        held = reader.openLog
        #expect(held != nil)
      }
      #expect(held == nil)
    }
  }

  /// The key store the writer read and extended is the one its readers answer from, and a
  /// change another writer makes to the file is seen by both.
  @Test func theKeyStoreIsReadOnceAndChangesAreSeen() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let (stream, event) = EventVocabulary.proposedEvent(
        .contact(.added(ContactAdded(record: Self.kermit))))
      try log.append([event], to: stream)
      let reader = LogReader(path: path)
      #expect(reader.openLog.keys === log.openLog.keys)
      let held = try log.openLog.keys.store()
      let entry = try #require(held.key(forContact: "14"))
      #expect(try reader.openLog.keys.lookup(entry.id) == .present(entry))
      // Another process destroys the key: both see it at once.
      var other = try KeyStore(logPath: path)
      try other.erase(contact: "14")
      #expect(try reader.openLog.keys.lookup(entry.id) == .erased(contact: "14"))
      var models = ReadModels()
      for recorded in try readAll(path) { try models.fold(recorded, path: path) }
      #expect(models.contacts.contact(Self.kermit.id)?.name == ContactRecord.erasedName)
    }
  }
}
