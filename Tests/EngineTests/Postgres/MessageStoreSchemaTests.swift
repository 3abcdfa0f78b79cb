import Foundation
import Testing

@testable import Engine
@testable import Postgres

@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct MessageStoreSchemaTests {
  @Test func installIsIdempotentAndTheFunctionsBehaveAsMessageDBs() throws {
    let server = try PostgresTestServer()
    defer { try? server.stop(removing: true) }
    let connection = try PostgresConnection(url: server.url())
    let first = try MessageStoreSchema.install(on: connection)
    #expect(first.created.count == MessageStoreSQL.statements.count)
    #expect(try MessageStoreSchema.install(on: connection).created == [])

    func value(_ sql: String, _ parameters: [String?] = []) throws -> String? {
      try connection.query(sql, parameters).rows.first?.first ?? nil
    }
    let write =
      "SELECT message_store.write_message(gen_random_uuid()::text, $1, 'Added', '{\"n\": 1}',"
      + " NULL, $2::bigint)"
    #expect(try value(write, ["account-1", "-1"]) == "0")
    #expect(try value(write, ["account-1", "0"]) == "1")
    #expect(try value(write, ["account-1", nil]) == "2")
    #expect(throws: PostgresError.self) { try value(write, ["account-1", "0"]) }
    #expect(try value("SELECT message_store.stream_version('account-1')") == "2")
    #expect(try value("SELECT message_store.stream_version('account-9')") == nil)
    #expect(
      try value("SELECT count(*) FROM message_store.get_stream_messages('account-1', 1)") == "2")
    #expect(
      try value("SELECT position FROM message_store.get_last_stream_message('account-1')") == "2")
    #expect(throws: PostgresError.self) {
      try value("SELECT * FROM message_store.get_stream_messages('account')")
    }
    #expect(try value("SELECT message_store.hash_64('13')") == "-4243265988278836978")
    #expect(try value("SELECT message_store.category('account-1+2')") == "account")
    #expect(try value("SELECT message_store.cardinal_id('account-1+2')") == "1")
    #expect(try value("SELECT message_store.message_store_version()") == "1.3.0")

    // Consumer groups split a category's streams: every message goes to exactly one member.
    for id in 2...40 { _ = try value(write, ["account-\(id)", nil]) }
    var seen: [String] = []
    for member in 0..<3 {
      let rows = try connection.query(
        "SELECT id, stream_name FROM message_store.get_category_messages('account', 1, -1,"
          + " NULL, $1::bigint, 3)", [String(member)]
      ).rows
      #expect(!rows.isEmpty)
      seen += rows.map { $0[0] ?? "" }
      let streams = Set(rows.map { $0[1] ?? "" })
      for stream in streams {
        let hash = try #require(
          try value(
            "SELECT mod(@message_store.hash_64(message_store.cardinal_id($1)), 3)", [stream]))
        #expect(hash == String(member))
      }
    }
    #expect(seen.count == 42)
    #expect(Set(seen).count == 42)
    #expect(throws: PostgresError.self) {
      try value("SELECT * FROM message_store.get_category_messages('account', 1, 10, NULL, 3, 3)")
    }
  }

  @Test func aSchemaThatDiffersIsRefusedNamingEachDifferenceAndNothingChanges() throws {
    let server = try PostgresTestServer()
    defer { try? server.stop(removing: true) }
    let connection = try PostgresConnection(url: server.url())
    _ = try MessageStoreSchema.install(on: connection)
    try server.psql(
      """
      DROP INDEX message_store.messages_category;
      ALTER TABLE message_store.messages ALTER COLUMN type TYPE varchar;
      CREATE OR REPLACE FUNCTION message_store.category(stream_name varchar) RETURNS varchar
        AS $$ BEGIN RETURN stream_name; END; $$ LANGUAGE plpgsql IMMUTABLE;
      """)
    let error = thrownPostgresError { _ = try MessageStoreSchema.install(on: connection) }
    #expect(
      error
        == .schemaMismatch(differences: [
          "function message_store.category has another body than ours",
          "table message_store.messages: column type is 'character varying not null', "
            + "expected 'text not null'",
        ]))
    // Nothing was created: the dropped index is still missing.
    #expect(
      try server.psql(
        "SELECT count(*) FROM pg_indexes WHERE indexname = 'messages_category'") == "0\n")
  }
}
