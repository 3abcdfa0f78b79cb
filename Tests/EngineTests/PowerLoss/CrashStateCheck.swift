import Foundation
import Projections

@testable import Engine
@testable import Events

/// What must hold in every crash state: checks the folder `folder` (a materialised state of
/// `run` cut at `acknowledged`) and returns the problems found, none when it is sound.
///
/// 1. A fresh reader serves every acknowledged event, each line as written, and only whole
///    writes (no event of a write whose other events it does not serve).
/// 2. The read models fold (every sealed payload's key is there), and a replay that starts
///    from the checkpoints gives the same models as a full one: no checkpoint claims events
///    the log does not hold.
/// 3. A writer's view (its index) holds exactly the served events: no index claims more.
/// 4. An erased contact is erased in the models and its text is in no file.
/// 5. The next command goes on: an append succeeds, then the append of a new contact (which
///    makes its key, so it opens and appends to the key store), each keeps every served event,
///    and both read back.
struct CrashStateCheck {
  let run: PowerLossRun
  let acknowledged: PowerLossRun.Acknowledgement
  let folder: String

  var path: String { folder + "/" + PowerLossRun.logName }

  /// The contact the next command adds: one no scenario has, so its key is a new one.
  static let nextContact = ContactRecord(
    id: ContactID(unchecked: "9035"), name: "Next Contact", companyName: "After The Crash")

  func problems() -> [String] {
    var problems: [String] = []
    do {
      let served = try PowerLossRun.served(path)
      problems += servingProblems(served)
      // No log (its first write lost): only the next append has anything to read.
      if FileManager.default.fileExists(atPath: path) {
        problems += try modelProblems(served, when: "after the crash")
      }
      problems += try writerProblems(served)
      problems += erasureProblems()
      // The next command: an append, then a read.
      var configuration = testConfiguration()
      configuration.indexSaveThreshold = 1
      let log = try EventLog(path: path, configuration: configuration)
      let next = try log.append([proposed("NoteAdded", #"{"n":"next"}"#)], to: "note-next")
      let (contactStream, contact) = EventVocabulary.proposedEvent(
        .contact(.added(ContactAdded(record: Self.nextContact))))
      let added = try log.append([contact], to: contactStream)
      let after = try PowerLossRun.served(path)
      if Array(after.prefix(served.count)) != served || after.count != served.count + 2
        || after.dropLast().last != next.last?.event || after.last != added.last?.event
      {
        problems.append(
          "the next appends left \(after.count) events served, not the \(served.count) before and their 2"
        )
      }
      problems += try modelProblems(after, when: "after the next append")
      problems += erasureProblems()
    } catch {
      problems.append("refused: \(error)")
    }
    return problems
  }

  private func servingProblems(_ served: [RecordedEvent]) -> [String] {
    var problems: [String] = []
    if served.count < acknowledged.eventCount {
      problems.append(
        "\(acknowledged.eventCount - served.count) acknowledged events lost: \(served.count) served of \(acknowledged.eventCount)"
      )
    }
    for (index, event) in served.enumerated() {
      guard index < run.events.count, run.events[index] == event else {
        problems.append("seq \(event.sequence) is served but is not the line the run wrote")
        break
      }
    }
    if let last = served.last, let batch = last.batch, batch.upperBound != last.sequence {
      problems.append("part of the write of seqs \(batch) is served (up to \(last.sequence))")
    }
    return problems
  }

  private func modelProblems(_ served: [RecordedEvent], when: String) throws -> [String] {
    var models = ReadModels()
    for event in served { try models.fold(event, path: path) }
    let replayed = try Replayer(
      reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path)
    ).readModels(at: .end).models
    var problems: [String] = []
    if replayed != models {
      problems.append("\(when): a replay from the checkpoints differs from a full replay")
    }
    for id in acknowledged.erased.keys
    where models.contacts.contact(id)?.name != ContactRecord.erasedName {
      problems.append(
        "\(when): erased contact \(id) is shown as '\(models.contacts.contact(id)?.name ?? "nothing")'"
      )
    }
    return problems
  }

  private func writerProblems(_ served: [RecordedEvent]) throws -> [String] {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    var configuration = testConfiguration()
    configuration.indexSaveThreshold = nil
    let log = try EventLog(path: path, configuration: configuration)
    var problems: [String] = []
    let servedIDs = Set(served.map(\.id))
    for event in run.events
    where try log.contains(eventID: event.id) != servedIDs.contains(event.id) {
      problems.append(
        "the writer's index says seq \(event.sequence) is \(servedIDs.contains(event.id) ? "missing" : "there"), the reader says otherwise"
      )
      break
    }
    return problems
  }

  private func erasureProblems() -> [String] {
    var problems: [String] = []
    let names = FileManager.default.subpaths(atPath: folder) ?? []
    for (id, texts) in acknowledged.erased {
      for name in names {
        guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)) else {
          continue
        }
        for text in texts where bytes.range(of: Data(text.utf8)) != nil {
          problems.append("erased contact \(id)'s '\(text)' is in \(name)")
        }
      }
    }
    return problems
  }
}
