import Dispatch
import Events
import Foundation
import Synchronization

/// The events of a log as an `AsyncSequence`: the committed ones from a start, then each new one
/// as any process appends it, in seq order, each once; see `LogFollower` for what "committed"
/// guarantees and for the errors that end it.
///
/// ```swift
/// let contacts = LogSubscription(path: "app.jsonl", from: .afterSequence(lastHandled),
///                                filter: EventFilter(categories: ["contact"]))
/// for try await event in contacts {
///   handle(event)
///   lastHandled = event.sequence   // resume from here next time
/// }
/// ```
///
/// The log is read on a thread of its own (it blocks in `poll` while idle) and handed over in
/// batches of up to 256 events; at most 4,096 events wait for the consumer, so a slow consumer
/// slows the reading instead of filling memory. Ending the loop, or cancelling its task, stops
/// the thread.
public struct LogSubscription: AsyncSequence, Sendable {
  public typealias Element = RecordedEvent

  /// Where the log is: a file's path, or a database's URL without its password.
  public let path: String
  public let start: FollowStart
  public let filter: EventFilter
  /// Makes the follower each iterator reads through.
  private let makeFollower: @Sendable () -> any EventFollowing

  public init(
    path: String, from start: FollowStart = .beginning, filter: EventFilter = EventFilter()
  ) {
    self.path = path
    self.start = start
    self.filter = filter
    makeFollower = { LogFollower(path: path, from: start, filter: filter) }
  }

  /// The events of the log `backend` keeps (a file or a database).
  package init(
    backend: any EventStoreBackend, from start: FollowStart, filter: EventFilter
  ) {
    path = backend.location
    self.start = start
    self.filter = filter
    makeFollower = { backend.follower(from: start, filter: filter) }
  }

  /// Events handed over at once: one lock and one wake-up per batch, not per event.
  static let batchSize = 256

  public func makeAsyncIterator() -> Iterator {
    let follower = makeFollower()
    // At most 16 batches (4,096 events) wait for the consumer.
    let channel = EventChannel<[RecordedEvent]>(capacity: 16)
    channel.produce(onThreadNamed: "replay.subscription") {
      var batch: [RecordedEvent] = []
      batch.reserveCapacity(Self.batchSize)
      // Everything committed so far is handed over before the follower waits for more.
      func handOver() -> Bool {
        guard !batch.isEmpty else { return true }
        let full = batch
        batch.removeAll(keepingCapacity: true)
        return channel.send(full)
      }
      do {
        try follower.follow(through: nil, caughtUp: handOver) { line in
          batch.append(line.recordedEvent())
          return batch.count < Self.batchSize || handOver()
        }
      } catch {
        // The events read before the error are delivered before it.
        _ = handOver()
        throw error
      }
      _ = handOver()
    }
    return Iterator(handle: Handle(channel: channel, stopFollowing: { follower.stop() }))
  }

  public struct Iterator: AsyncIteratorProtocol {
    let handle: Handle
    private var batch: [RecordedEvent] = []
    private var position = 0

    init(handle: Handle) {
      self.handle = handle
    }

    public mutating func next() async throws -> RecordedEvent? {
      if position < batch.count {
        position += 1
        return batch[position - 1]
      }
      guard let next = try await handle.receive(), !next.isEmpty else { return nil }
      batch = next
      position = 1
      return batch[0]
    }
  }

  /// Stops the reading thread when the iterator goes away.
  public typealias Handle = FollowingHandle<[RecordedEvent]>
}

/// What an iterator holds of its reading thread: the channel it receives from, and how to stop
/// the thread's follower when the task is cancelled or the iterator goes away.
public final class FollowingHandle<Element: Sendable>: Sendable {
  let channel: EventChannel<Element>
  private let stopFollowing: @Sendable () -> Void

  init(channel: EventChannel<Element>, stopFollowing: @escaping @Sendable () -> Void) {
    self.channel = channel
    self.stopFollowing = stopFollowing
  }

  /// The next element; nil at the end. Cancelling the task stops the thread.
  func receive() async throws -> Element? {
    try await withTaskCancellationHandler {
      try await channel.receive()
    } onCancel: {
      stop()
    }
  }

  func stop() {
    channel.cancel()
    stopFollowing()
  }

  deinit { stop() }
}

/// A bounded hand-over from one producing thread to one async consumer: `send` blocks the
/// producer while `capacity` elements wait; `receive` suspends the consumer while none do.
final class EventChannel<Element: Sendable>: Sendable {
  private struct State: ~Copyable {
    var buffer: [Element] = []
    var head = 0
    var end: Result<Void, any Error>?
    var cancelled = false
    var producerWaiting = false
    var consumer: CheckedContinuation<Void, Never>?
  }

  private enum SendStep { case sent, full, cancelled }

  private enum ReceiveStep {
    case element(Element)
    case finished(Result<Void, any Error>)
    case wait
  }

  private let state = Mutex<State>(State())
  private let space = DispatchSemaphore(value: 0)
  let capacity: Int

  init(capacity: Int = 4096) {
    self.capacity = capacity
  }

  /// Hands `element` over, waiting while the buffer is full; false once the consumer is gone.
  func send(_ element: sending Element) -> Bool {
    var element = Optional(element)
    while true {
      let (step, consumer) = state.withLock {
        state -> (SendStep, CheckedContinuation<Void, Never>?) in
        if state.cancelled { return (.cancelled, nil) }
        if state.buffer.count - state.head >= capacity {
          state.producerWaiting = true
          return (.full, nil)
        }
        if let taken = element.take() { state.buffer.append(taken) }
        let consumer = state.consumer
        state.consumer = nil
        return (.sent, consumer)
      }
      consumer?.resume()
      switch step {
      case .sent: return true
      case .cancelled: return false
      case .full: space.wait()
      }
    }
  }

  /// Runs `produce` on a new thread named `name`, then ends the sequence: normally, or with the
  /// error `produce` threw. Ending it after the consumer has gone changes nothing.
  func produce(onThreadNamed name: String, _ produce: @escaping @Sendable () throws -> Void) {
    let thread = Thread {
      do {
        try produce()
        self.finish(throwing: nil)
      } catch {
        self.finish(throwing: error)
      }
    }
    thread.name = name
    thread.start()
  }

  /// Ends the sequence: with `error`, or normally.
  func finish(throwing error: (any Error)?) {
    let consumer = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if state.end == nil { state.end = error.map { .failure($0) } ?? .success(()) }
      let consumer = state.consumer
      state.consumer = nil
      return consumer
    }
    consumer?.resume()
  }

  /// Stops the producer and ends the sequence (the consumer has gone).
  func cancel() {
    let consumer = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.cancelled = true
      if state.end == nil { state.end = .success(()) }
      let consumer = state.consumer
      state.consumer = nil
      return consumer
    }
    consumer?.resume()
    space.signal()
  }

  /// The next element; `nil` at the end; throws the producer's error.
  func receive() async throws -> Element? {
    while true {
      let (step, wakeProducer) = state.withLock { state -> (ReceiveStep, Bool) in
        if state.head < state.buffer.count, !state.cancelled {
          let element = state.buffer[state.head]
          state.head += 1
          if state.head >= 1024, state.head * 2 >= state.buffer.count {
            state.buffer.removeFirst(state.head)
            state.head = 0
          }
          let wake = state.producerWaiting
          state.producerWaiting = false
          return (.element(element), wake)
        }
        if let end = state.end { return (.finished(end), false) }
        return (.wait, false)
      }
      if wakeProducer { space.signal() }
      switch step {
      case .element(let element): return element
      case .finished(let end):
        try end.get()
        return nil
      case .wait:
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let ready = state.withLock { state -> Bool in
            if state.head < state.buffer.count || state.end != nil { return true }
            state.consumer = continuation
            return false
          }
          if ready { continuation.resume() }
        }
      }
    }
  }
}
