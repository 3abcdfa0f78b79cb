import Events
import Projections

/// What changed in one read model between two points of the log: entities added, removed and
/// changed, field by field (see `EntryDiff`).
package struct ReadModelDiff: Sendable, Equatable {
  /// The model's name (`contacts`).
  public var model: String
  /// The older point, as asked for.
  public var from: ReplayPoint
  /// The newer point, as asked for.
  public var to: ReplayPoint
  /// The last event read for `from`: the seq itself for a seq, the log's last for `.end` and for
  /// an instant (every event is read, as events are not in `at` order); 0 for none.
  public var fromSequence: Int64
  /// The last event read for `to`.
  public var toSequence: Int64
  /// The differences from the state at `from` to the state at `to`.
  public var changes: EntryDiff
  /// The label (`ReadModelEntry.label`) of each changed entity that has one, by id: as it is at
  /// `to`, or at `from` when the change took it away.
  public var labels: [EntityKey: String]
}

extension Replayer {
  /// The differences in model `name` between the states at `from` and at `to`.
  ///
  /// Each state is replayed on its own (from the newest usable checkpoint, see
  /// `readModels(at:models:saveEvery:)`), folding only that model's events. `from` may be after
  /// `to`: the result is then the reverse diff (what was added going forward shows as removed).
  /// - Parameters:
  ///   - name: one of `ReadModels.modelNames`.
  ///   - from: the older point.
  ///   - to: the newer point.
  /// - Throws: `EngineError` for a missing or bad log, or a seq past its end.
  /// - Precondition: `name` is one of `ReadModels.modelNames`.
  package func diff(
    model name: String, from: ReplayPoint, to: ReplayPoint
  ) throws -> ReadModelDiff {
    precondition(ReadModels.modelNames.contains(name), "'\(name)' is no read model")
    let old = try readModels(at: from, models: [name])
    let new = try readModels(at: to, models: [name])
    return ReadModelDiff(model: name, from: from, to: to, old: old, new: new)
  }
}

extension ReadModelDiff {
  /// The diff of model `name` between two replays' results, `old` at `from` and `new` at `to`
  /// (however they were read: the file, or a database through `LineFold`).
  package init(
    model name: String, from: ReplayPoint, to: ReplayPoint, old: Replayer.Result,
    new: Replayer.Result
  ) {
    let oldEntries = old.models.model(named: name)?.entries ?? [:]
    let newEntries = new.models.model(named: name)?.entries ?? [:]
    let changes = EntryDiff(from: oldEntries, to: newEntries)
    var labels: [EntityKey: String] = [:]
    for change in changes.changed {
      let id = EntityKey(change.id)
      labels[id] = newEntries[id]?.label ?? oldEntries[id]?.label
    }
    self.init(
      model: name, from: from, to: to, fromSequence: old.lastSequence,
      toSequence: new.lastSequence, changes: changes, labels: labels)
  }
}
