import Events
import Foundation
import Projections

@testable import Engine

/// A run of the library recorded through the file layer (`StorageRecorder`): the folder it
/// started from, every change it made, and what it had acknowledged after each step.
struct PowerLossRun {
  /// The log's name inside the folder.
  static let logName = "events.jsonl"

  /// What the caller had been told was done once `point` operations were made.
  struct Acknowledgement {
    var point: Int
    /// Events served by the log when the step returned (all acknowledged: synced appends).
    var eventCount: Int
    /// Contacts whose erasure had returned, with the text of theirs that must be nowhere.
    var erased: [ContactID: [String]]
  }

  var start: CrashModel
  var operations: [StorageOperation]
  var acknowledgements: [Acknowledgement]
  /// Every event the run wrote (the log at its end, before any crash).
  var events: [RecordedEvent]

  /// What was acknowledged before operation `point` (the crash) was made.
  func acknowledged(before point: Int) -> Acknowledgement {
    acknowledgements.last { $0.point <= point } ?? acknowledgements[0]
  }

  /// The writer's settings in a run: synced appends, an index saved every few events (so that
  /// saving it is part of the run), a fixed clock and ids.
  static func configuration() -> EventLog.Configuration {
    var configuration = testConfiguration()
    configuration.syncPolicy = .always
    configuration.indexSaveThreshold = 3
    return configuration
  }

  /// Records `steps` run on the log in `folder` after `setUp` (not recorded).
  static func record(
    in folder: String, setUp: (EventLog) throws -> Void, steps: [(EventLog) throws -> Step]
  ) throws -> PowerLossRun {
    let path = folder + "/" + logName
    do {
      let log = try EventLog(path: path, configuration: configuration())
      try setUp(log)
    }
    let start = try CrashModel(snapshotOf: folder)
    var erased: [ContactID: [String]] = [:]
    let log = try EventLog(path: path, configuration: configuration())
    let recording = StorageRecorder.start(under: folder)
    defer { recording.stop() }
    var acknowledgements = [
      Acknowledgement(point: 0, eventCount: try served(path).count, erased: [:])
    ]
    for step in steps {
      let done = try step(log)
      if case .erased(let id, let texts) = done { erased[id] = texts }
      acknowledgements.append(
        Acknowledgement(point: recording.count, eventCount: try served(path).count, erased: erased))
    }
    recording.stop()
    return PowerLossRun(
      start: start, operations: recording.operations, acknowledgements: acknowledgements,
      events: try served(path))
  }

  /// What a step did that must survive.
  enum Step {
    case wrote
    case erased(ContactID, texts: [String])
  }

  /// The events a fresh reader serves (none when there is no log).
  static func served(_ path: String) throws -> [RecordedEvent] {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    return try readAll(path)
  }
}
