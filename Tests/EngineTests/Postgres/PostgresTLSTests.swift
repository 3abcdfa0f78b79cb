import Foundation
import Testing

@testable import Engine
@testable import Postgres

/// Against a server that accepts TCP connections only over TLS, with a self-signed certificate
/// made by `openssl` in the test's server folder.
@Suite(
  .enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"),
  .enabled(if: PostgresTestServer.canMakeCertificates, "no openssl here: skipped"))
struct PostgresTLSTests {
  @Test func requireShipsDisableIsRefusedAndVerifyFullTrustsOnlyItsCertificate() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let certificate = try server.requireTLS()
      let base = server.url()

      // sslmode=require: encrypted, and a log ships through it.
      let connection = try PostgresConnection(url: base + "?sslmode=require")
      #expect(connection.isEncrypted)
      _ = try MessageStoreSchema.install(on: connection)
      let path = try makeGeneratedLog(in: directory, count: 1500, seed: "tls")
      let shipped = try LogShipper(logPath: path, connection: connection).ship(following: false)
      #expect(shipped.shippedEvents == 1500)
      try expectTable(connection, equals: path)

      // sslmode=disable: the server has no line for an unencrypted connection.
      let refused = thrownPostgresError {
        _ = try PostgresConnection(url: base + "?sslmode=disable")
      }
      guard case .authenticationFailed(_, let message) = refused else {
        Issue.record("expected authenticationFailed, got \(String(describing: refused))")
        return
      }
      #expect(message.contains("no encryption"))
      #expect(refused?.description.contains("sslmode=require") == true)

      // verify-full with the server's certificate as the root: encrypted and verified.
      let verified = try PostgresConnection(
        url: base + "?sslmode=verify-full&sslrootcert=\(certificate)")
      #expect(verified.isEncrypted)
      #expect(try count(verified) == 1500)

      // verify-full with another certificate as the root: refused before any statement.
      let other = try server.makeCertificate(named: "other")
      let untrusted = thrownPostgresError {
        _ = try PostgresConnection(url: base + "?sslmode=verify-full&sslrootcert=\(other)")
      }
      guard case .connectionFailed(_, let reason) = untrusted else {
        Issue.record("expected connectionFailed, got \(String(describing: untrusted))")
        return
      }
      #expect(reason.contains("certificate verify failed"))
    }
  }
}
