import Dispatch
import Engine
import Foundation

/// A subscription's catch-up: `LogSubscription` from the beginning over the first `--count`
/// events of a log (every event as a `RecordedEvent`, handed from the reading thread to an
/// async consumer).
enum SubscribeBenchmark {
  /// What the consuming task hands back.
  final class Outcome: @unchecked Sendable {
    var events = 0
    var failure: (any Error)?
  }

  static func run(_ arguments: Arguments) throws {
    let path = try arguments.path(0)
    let count = arguments.int("--count") ?? .max
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    let seconds = measure {
      Task {
        do {
          for try await _ in LogSubscription(path: path, from: .beginning) {
            outcome.events += 1
            if outcome.events >= count { break }
          }
        } catch {
          outcome.failure = error
        }
        done.signal()
      }
      done.wait()
    }
    if let failure = outcome.failure { throw failure }
    report(["events": outcome.events, "seconds": seconds])
  }
}
