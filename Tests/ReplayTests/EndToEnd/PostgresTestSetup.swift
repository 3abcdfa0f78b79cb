import Foundation
import Testing

/// What the PostgreSQL end-to-end tests set up before they start: a test server whose
/// database `replay pg init` prepared, and a copy of the sample log, grown by generated events
/// and shipped to it. A suite that uses these is `.enabled(if: PostgresTestServer.isAvailable,
/// …)`, so it is skipped, with its message, where PostgreSQL is not installed.
enum PostgresTestSetup {
  /// A new test server whose database `replay pg init` prepared. The caller stops it:
  /// `defer { try? server.stop(removing: true) }`.
  static func initializedServer(
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> PostgresTestServer {
    let server = try PostgresTestServer()
    do {
      let initialized = try ReplayProcess.run(["pg", "init", server.url()])
      #expect(initialized.status == 0, "\(initialized.error)", sourceLocation: sourceLocation)
    } catch {
      try? server.stop(removing: true)
      throw error
    }
    return server
  }

  /// Copies the sample log into `directory`, appends `events` generated events to it
  /// (`generate(_:seed:chunkSize:appendingTo:)`), and ships it to `url` when one is given.
  /// - Returns: The copy's path.
  static func sampleLog(
    in directory: String, generating events: Int = 0, seed: String = "sample",
    chunkSize: Int? = 10, shippingTo url: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let log = try RepositoryFiles.copySampleLog(to: directory)
    if events > 0 {
      try generate(
        events, seed: seed, chunkSize: chunkSize, appendingTo: log, sourceLocation: sourceLocation)
    }
    if let url { try ship(log, to: url, sourceLocation: sourceLocation) }
    return log
  }

  /// Appends `events` generated events to `log` (`replay generate --append`), with `seed`,
  /// written `chunkSize` events at a time (the generator's default when `nil`).
  static func generate(
    _ events: Int, seed: String, chunkSize: Int? = 10, appendingTo log: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let chunk = chunkSize.map { ["--chunk-size", String($0)] } ?? []
    let generated = try ReplayProcess.run(
      ["generate", "--events", String(events), "--seed", seed, "--append"] + chunk + ["--log", log])
    #expect(generated.status == 0, "\(generated.error)", sourceLocation: sourceLocation)
  }

  /// Ships `log` to the database at `url` (`replay ship`).
  static func ship(
    _ log: String, to url: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let shipped = try ReplayProcess.run(["ship", "--log", log, "--to", url])
    #expect(shipped.status == 0, "\(shipped.error)", sourceLocation: sourceLocation)
  }
}

/// Calls `body` with a temporary folder and a test server whose database `replay pg init`
/// prepared; the server is stopped and removed after.
func withInitializedDatabase(
  _ body: (_ directory: String, _ server: PostgresTestServer, _ url: String) throws -> Void
) throws {
  try withTemporaryDirectory { directory in
    let server = try PostgresTestSetup.initializedServer()
    defer { try? server.stop(removing: true) }
    try body(directory, server, server.url())
  }
}

/// Erases contact 13 in `log` (`contacts erase`) and ships the erasure to `url`.
func eraseContact13(
  in log: String, shippingTo url: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let erased = try ReplayProcess.run(
    ["contacts", "erase", "13", "--log", log, "--actor", "dpo", "--reason", "request"])
  #expect(erased.status == 0, "\(erased.error)", sourceLocation: sourceLocation)
  try PostgresTestSetup.ship(log, to: url, sourceLocation: sourceLocation)
}

/// Calls `body` with a temporary folder, a prepared test server, the sample log with `events`
/// generated events appended (with `seed`) copied into the folder and shipped, and the
/// database's URL.
func withShippedSample(
  generating events: Int = 600, seed: String,
  _ body: (_ directory: String, _ server: PostgresTestServer, _ log: String, _ url: String) throws
    -> Void
) throws {
  try withInitializedDatabase { directory, server, url in
    let log = try PostgresTestSetup.sampleLog(
      in: directory, generating: events, seed: seed, shippingTo: url)
    try body(directory, server, log, url)
  }
}

/// As `withShippedSample`, for an `async` body.
func withAsyncShippedSample(
  generating events: Int = 600, seed: String,
  _ body: (_ directory: String, _ server: PostgresTestServer, _ log: String, _ url: String)
    async throws -> Void
) async throws {
  try await withAsyncTemporaryDirectory { directory in
    let server = try PostgresTestSetup.initializedServer()
    defer { try? server.stop(removing: true) }
    let url = server.url()
    let log = try PostgresTestSetup.sampleLog(
      in: directory, generating: events, seed: seed, shippingTo: url)
    try await body(directory, server, log, url)
  }
}

extension PostgresTestServer {
  /// Makes the line of the row at `global_position` 1 one that no reader accepts: whatever
  /// reads the first row fails on it (the proof that a read starting later does not).
  func breakFirstRow() throws {
    _ = try psql(
      """
      UPDATE message_store.messages SET metadata = jsonb_set(metadata, '{line}',
        to_jsonb('{"seq":1,"broken":true}'::text)) WHERE global_position = 1
      """)
  }
}
