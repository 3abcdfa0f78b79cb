import Foundation
import Testing

@testable import Engine
@testable import Postgres

@Suite struct PostgresConnectionTests {
  @Test func aMissingLibraryNamesWhatWasTriedAndHowToInstallIt() throws {
    let result = LibPQ.load(names: ["/nonexistent/libpq.so.5"])
    guard case .failure(let error) = result else {
      Issue.record("a library that does not exist was loaded")
      return
    }
    guard case .libraryMissing(let tried, _) = error else {
      Issue.record("expected libraryMissing, got \(error)")
      return
    }
    #expect(tried == ["/nonexistent/libpq.so.5"])
    #expect(error.description.contains("apt-get install libpq5"))
    #expect(error.description.contains("REPLAY_LIBPQ"))
  }

  @Test(arguments: [
    ("postgresql://ana:s3cret@db:5432/app", "postgresql://ana:***@db:5432/app"),
    (
      "postgresql://ana@db/app?password=s3cret&sslmode=require",
      "postgresql://ana@db/app?password=***&sslmode=require"
    ),
    ("host=db user=ana password=s3cret dbname=app", "host=db user=ana password=*** dbname=app"),
    ("postgresql://db/app", "postgresql://db/app"),
  ])
  func aPasswordIsNeverShown(url: String, shown: String) {
    #expect(PostgresConnection.redacted(url) == shown)
  }

  @Test(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
  func scramAndMd5PasswordsLogInAndAWrongOneIsRefused() throws {
    let server = try PostgresTestServer()
    defer { try? server.stop(removing: true) }
    for user in ["scram_user", "md5_user"] {
      let connection = try PostgresConnection(url: server.url(user: user, password: "secret"))
      #expect(try connection.query("SELECT current_user", []).rows == [[user]])
      #expect(try connection.query("SELECT $1::int + 1", ["41"]).rows == [["42"]])
      #expect(try connection.query("SELECT $1::text IS NULL", [nil]).rows == [["t"]])
    }
    let method = try server.psql(
      "SELECT rolname || ' ' || left(rolpassword, 5) FROM pg_authid"
        + " WHERE rolname IN ('scram_user', 'md5_user') ORDER BY 1")
    #expect(method == "md5_user md5c6\nscram_user SCRAM\n" || method.contains("scram_user SCRAM"))
    for password in ["wrong", nil] {
      let error = thrownPostgresError {
        _ = try PostgresConnection(url: server.url(user: "scram_user", password: password))
      }
      guard case .authenticationFailed(let target, let message) = error else {
        Issue.record("expected authenticationFailed, got \(String(describing: error))")
        continue
      }
      #expect(!target.contains("wrong"))
      #expect(
        message.contains(password == nil ? "no password supplied" : "for user \"scram_user\""))
    }
  }

  @Test(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
  func aTimeoutAndAServerThatGoesAwayAreTheirOwnErrors() throws {
    let server = try PostgresTestServer()
    defer { try? server.stop(removing: true) }
    let connection = try PostgresConnection(url: server.url())
    try connection.execute("SET statement_timeout = 100")
    #expect {
      try connection.execute("SELECT pg_sleep(5)")
    } throws: { error in
      guard case .statementTimeout(let message) = error as? PostgresError else { return false }
      return message.contains("statement timeout")
    }
    // The connection is still good after a timeout.
    #expect(try connection.query("SELECT 1", []).rows == [["1"]])
    #expect {
      try connection.execute("SELECT * FROM no_such_table")
    } throws: { error in
      guard case .statementFailed(let state, _, _) = error as? PostgresError else { return false }
      return state == "42P01"
    }
    try server.stop()
    #expect {
      try connection.query("SELECT 1", [])
    } throws: { error in
      guard case .connectionLost = error as? PostgresError else { return false }
      return true
    }
    #expect {
      try PostgresConnection(url: server.url())
    } throws: { error in
      guard case .connectionFailed(let target, _) = error as? PostgresError else { return false }
      return target == server.url()
    }
  }
}

/// The `PostgresError` `body` throws; nil when it throws nothing or another error.
func thrownPostgresError(_ body: () throws -> Void) -> PostgresError? {
  do {
    try body()
    return nil
  } catch let error as PostgresError {
    return error
  } catch {
    return nil
  }
}
