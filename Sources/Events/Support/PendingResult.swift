import Dispatch
import Synchronization

/// A result another thread fills in once; ``wait(orElse:)`` blocks until it has, and any number
/// of threads may wait. What a load started ahead hands to the thread that needs it (a
/// checkpoint's contacts decoded beside the other models, a key store's index read beside a
/// checkpoint's load).
///
/// - Note: SPI (`@_spi(Tables) import Events`), for the read models and the engine.
@_spi(Tables)
public final class PendingResult<Success: Sendable, Failure: Error>: Sendable {
  private let result = Mutex<Result<Success, Failure>?>(nil)
  private let done = DispatchSemaphore(value: 0)

  public init() {}

  /// Sets the result and wakes every waiter.
  public func fill(_ value: Result<Success, Failure>) {
    result.withLock { $0 = value }
    done.signal()
  }

  /// The result, once `fill` has set it. `fallback` is what a result that is somehow absent
  /// reads as (it cannot be: `fill` sets it before it wakes anyone).
  public func wait(orElse fallback: @autoclosure () -> Failure) -> Result<Success, Failure> {
    done.wait()
    // Passed on, so that the next waiter wakes too.
    done.signal()
    return result.withLock { $0 } ?? .failure(fallback())
  }
}

extension PendingResult where Failure == Never {
  /// The value, once `fill` has set it; `fallback` is what an absent one reads as (it cannot
  /// be, as above).
  public func wait(orElse fallback: @autoclosure () -> Success) -> Success {
    done.wait()
    done.signal()
    return result.withLock { $0 }?.get() ?? fallback()
  }
}
