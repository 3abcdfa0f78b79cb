import Events
import Foundation
import Projections
import Synchronization

/// The read models of a log, kept current: an `AsyncSequence` whose first element is the models
/// at the end of the log (loaded from the newest checkpoint plus the events since, as `state`
/// does), and each next element the models after the events appended since, by any process.
/// Nothing is replayed from the start after the first load: each new event is folded into the
/// models already held.
///
/// ```swift
/// for try await update in ReadModelUpdates(path: "app.jsonl", models: [ContactList.name]) {
///   show(update.models.contacts)      // the home screen's two sections, as of update.sequence
/// }
/// ```
///
/// One element per burst: events appended together (or while the previous update was being
/// handled) make one update. Ending the loop, or cancelling its task, stops the reading.
public struct ReadModelUpdates: AsyncSequence, Sendable {
  /// The models as of one seq.
  public struct Update: Sendable {
    /// Every model asked for, after every event up to `sequence`.
    public var models: ReadModels
    /// The last event folded (0 for an empty log).
    public var sequence: Int64
    /// The events folded since the previous update (0 for the first).
    public var newEventCount: Int
  }

  public typealias Element = Update

  /// Where the log is: a file's path, or a database's URL without its password.
  public let path: String
  /// The models kept (all five when `nil`).
  public let models: Set<String>?
  /// Loads and follows the models (`EventStoreBackend.followModels`).
  private let followModels:
    @Sendable (
      _ started: (any EventFollowing) -> Bool,
      _ body: (LogFollower.FollowedModels) throws -> Bool
    ) throws -> Void

  public init(path: String, models: Set<String>? = nil) {
    self.path = path
    self.models = models
    followModels = { started, body in
      try FileStoreBackend.followModels(path: path, models, started: started, body)
    }
  }

  /// The read models of the log `backend` keeps (a file or a database).
  package init(backend: any EventStoreBackend, models: Set<String>?) {
    path = backend.location
    self.models = models
    followModels = { started, body in try backend.followModels(models, started: started, body) }
  }

  public func makeAsyncIterator() -> Iterator {
    let followModels = followModels
    let channel = EventChannel<Update>(capacity: 1)
    let box = FollowerBox()
    channel.produce(onThreadNamed: "replay.read-model-updates") {
      try followModels(box.set) { followed in
        channel.send(
          Update(
            models: followed.models, sequence: followed.sequence,
            newEventCount: followed.newEventCount))
      }
    }
    return Iterator(handle: Handle(channel: channel, stopFollowing: { box.stop() }))
  }

  public struct Iterator: AsyncIteratorProtocol {
    let handle: Handle

    public mutating func next() async throws -> Update? {
      try await handle.receive()
    }
  }

  /// Stops the reading thread when the iterator goes away.
  public typealias Handle = FollowingHandle<Update>
}

/// The follower a reading thread starts once its first load is done, stoppable before that.
final class FollowerBox: Sendable {
  private let state = Mutex<(follower: (any EventFollowing)?, stopped: Bool)>(
    (follower: nil, stopped: false))

  /// Keeps `follower`; false when stopped already (the thread then ends).
  func set(_ follower: any EventFollowing) -> Bool {
    state.withLock { state in
      state.follower = follower
      return !state.stopped
    }
  }

  func stop() {
    let follower = state.withLock { state in
      state.stopped = true
      return state.follower
    }
    follower?.stop()
  }
}
