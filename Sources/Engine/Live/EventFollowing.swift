import Events

/// A follower of a log wherever it is kept: a file (`LogFollower`) or a database (the
/// `Postgres` module's follower). Commands that follow (`log -f`) take either.
package protocol EventFollowing: AnyObject, Sendable {
  /// Stops `follow` (from any thread): it returns once the event it is delivering is handled.
  func stop()

  /// Calls `body` with every committed event that passes the filter, from the start on, then
  /// with each new one as it is committed, until `body` returns false, `stop()` is called, or
  /// an error; `caughtUp` is called each time every committed event was delivered, before
  /// waiting for more (return false to stop). With `last`, following ends once the event
  /// with that seq has been read.
  func follow(
    through last: Int64?, caughtUp: () throws -> Bool, _ body: (EventLine) throws -> Bool
  ) throws
}

extension LogFollower: EventFollowing {}
