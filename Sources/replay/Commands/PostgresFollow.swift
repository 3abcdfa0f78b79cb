import Engine
import Postgres

/// `log -f` and `state --follow` on `--log postgresql://…`: the follower that reads the
/// database (`MessageStoreFollower`), woken by the trigger's notifications, reconnecting for
/// `--retry-for` when the server goes away.
enum PostgresFollow {
  static let retryFor = ValueOption(
    names: ["--retry-for"], valueName: "seconds",
    help:
      "With --follow on a log kept in PostgreSQL: how long to keep reconnecting to a server that went away (0: not at all).",
    defaultDescription: "forever",
    expecting: "expected a whole number of seconds, 0 or more"
  ) { Int($0).flatMap { $0 >= 0 ? $0 : nil } }

  /// `--group <member>/<size>`: members are numbered from 1 here (Message DB's
  /// `consumer_group_member` is this number minus 1).
  static let group = ValueOption(
    names: ["--group"], valueName: "member/size",
    help:
      "Only the streams this member of a consumer group owns (split as Message DB's consumer groups split them): 1/3, 2/3 and 3/3 share the streams between three followers.",
    expecting:
      "expected <member>/<size>, the member numbered from 1 to the group's size, such as 1/3 (1/3, 2/3 and 3/3 together see every stream)"
  ) { text -> ConsumerGroup? in
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let member = Int64(parts[0]), let size = Int64(parts[1]),
      member >= 1
    else { return nil }
    return ConsumerGroup(member: member - 1, size: size)
  }
}

extension ParsedInvocation {
  /// Refuses `--retry-for` without `--follow`, where it would do nothing.
  /// - Throws: `UsageError`.
  func refuseRetryWithoutFollow(_ follow: Bool) throws {
    if !follow, try self[PostgresFollow.retryFor] != nil {
      throw UsageError(
        "'--retry-for' goes with '--follow' on a log kept in PostgreSQL: add '--follow' or leave it out"
      )
    }
  }

  /// `state --follow` on the database `--log` names: `show` is called with the models at
  /// the end, then after each burst of new events, as the file's follow calls it; false when
  /// `--log` names a file. The models start from the newest checkpoint that matches, as
  /// `state` does (not with `--no-checkpoints`; `--verbose` says which).
  func followModelsInPostgres(show: (Replayer.Result, _ isFirst: Bool) throws -> Bool) throws
    -> Bool
  {
    guard let database = postgresLog else { return false }
    let follower = MessageStoreFollower(
      url: database.url, from: .beginning, reconnection: try followReconnection())
    let interruption = FollowInterruption(stopping: follower)
    defer { interruption.cancel() }
    var isFirst = true
    try follower.follow(
      usingCheckpoints: usesCheckpoints, explain: explainer,
      foldingModels: { result, newEventCount in
        guard isFirst || newEventCount > 0 else { return true }
        defer { isFirst = false }
        return try show(result, isFirst)
      })
    return true
  }

  /// The follower of the log `--log` names: the database's, or the file's.
  /// - Throws: `UsageError` for `--retry-for` on a file.
  func follower(from start: FollowStart, filter: EventFilter) throws -> any EventFollowing {
    guard let database = postgresLog else {
      if try self[PostgresFollow.retryFor] != nil {
        throw UsageError(
          "'--retry-for' is for a log kept in PostgreSQL; a file is always there: leave it out")
      }
      return LogFollower(path: logPath, from: start, filter: filter)
    }
    return MessageStoreFollower(
      url: database.url, from: start, filter: filter, reconnection: try followReconnection())
  }

  /// How a follower of the database reconnects: for `--retry-for` seconds (forever when not
  /// given; nil for 0), saying so on standard error.
  func followReconnection() throws -> LogShipper.Reconnection? {
    guard let database = postgresLog else { return nil }
    let seconds = try self[PostgresFollow.retryFor]
    if seconds == 0 { return nil }
    return .saying(
      on: terminal, url: database.url, target: database.name,
      giveUpAfter: seconds.map { .seconds($0) }, eventsUpToLast: "was read")
  }
}

extension LogShipper.Reconnection {
  /// Reconnects to `url` for `giveUpAfter` (nil: for ever), saying on standard error when the
  /// connection to `target` is lost, with what became of the events up to the last one
  /// (`eventsUpToLast`: "was read", "is in the database"), and when it is made again.
  static func saying(
    on terminal: Terminal, url: String, target: String, giveUpAfter: Duration?,
    eventsUpToLast: String
  ) -> Self {
    Self(url: url, giveUpAfter: giveUpAfter) { event in
      switch event {
      case .lost(let message, let last):
        terminal.writeError(
          "the connection to PostgreSQL was lost (\(message)); every event up to seq \(last) "
            + "\(eventsUpToLast); reconnecting\n")
      case .reconnected(let attempts, let after):
        terminal.writeError(
          "reconnected to '\(target)' after \(after.components.seconds) s "
            + "(\(attempts) attempts); resuming\n")
      }
    }
  }
}

extension MessageStoreFollower.Failure: CLIError {
  /// A server that stayed away is 69, as for `ship`; a delivered row that changed is the
  /// log's trouble, 74, as for a followed file that was rewritten.
  var exitCode: ExitCode {
    switch self {
    case .serverGone: .remoteUnavailable
    case .rowChanged: .ioError
    }
  }

  var message: String { description }
}
