import Foundation
import Logging
import SQLKit
import Testing

@testable import StorekeeperStore

/// Schema step 10 on SQLite: the inbox and the ledger are rebuilt with their signed payloads as
/// the last columns, so that reading a row's state or times no longer walks the payload's chain
/// of overflow pages; nothing of the data, its ids or indexes may change. Step 12 then moves
/// the inbox's bodies to a table of their own, under the same ids.
@Suite("Schema 10: signed payloads last on SQLite")
struct LargeColumnsLastTests {
    static let tables = ["notification_inbox", "ledger"]

    @Test("a schema-9 database is rebuilt with the payloads last: every row, id and index kept, and no id given twice")
    func rebuild() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-reorder-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "test.store")
        logger.logLevel = .warning
        try await SQLStore.withStore(.sqlite(path: directory.appendingPathComponent("store.sqlite").path), logger: logger) { store in
            let payload = String(repeating: "x", count: 20_000)
            try await store.backend.transaction { db in
                // Schema 12 keeps the inbox's bodies apart: back to bodies in the rows first.
                try await db.raw("ALTER TABLE notification_inbox ADD COLUMN body TEXT NOT NULL DEFAULT ''").run()
                try await db.raw("DROP TABLE notification_bodies").run()
                for index in 1...5 {
                    try await db.raw(
                        """
                        INSERT INTO notification_inbox (app_id, idempotency_key, version, body, headers, received_at, state, notification_uuid)
                        VALUES ('a', \(bind: "key-\(index)"), 2, \(bind: payload + "\(index)"), '{}', \(bind: index * 1_000), 'processed', \(bind: "uuid-\(index)"))
                        """
                    ).run()
                    try await db.raw(
                        """
                        INSERT INTO ledger (app_id, fact_key, kind, original_transaction_id, source, fact, raw, recorded_at)
                        VALUES ('a', \(bind: "fact-\(index)"), 'purchase', 'chain', 'notification', '{}', \(bind: payload + "\(index)"), \(bind: index))
                        """
                    ).run()
                }
                // The newest rows were removed (retention): their ids must never come back.
                try await db.raw("DELETE FROM notification_inbox WHERE id = 5").run()
                try await db.raw("DELETE FROM ledger WHERE id = 5").run()
                // Back to schema 9 (which had inbox_pending).
                try await db.raw("DELETE FROM schema_migrations WHERE version >= 10").run()
                try await db.raw("DROP INDEX inbox_app_received").run()
                try await db.raw("DROP INDEX jobs_kind").run()
                try await db.raw("DROP TABLE app_account_tokens").run()
                try await db.raw("CREATE INDEX inbox_pending ON notification_inbox (state, id)").run()
            }
            var before = try await Self.contents(store, tables: Self.tables)
            let indexesBefore = try await Self.indexes(store)

            #expect(try await store.migrate() == Array(10...SQLStore.latestSchemaVersion))

            // Step 12 moved each body to notification_bodies, under its row's id.
            let bodies = try #require(before["notification_inbox"]).map { ["id": $0["id"] ?? "", "body": $0["body"] ?? ""] }
            before["notification_inbox"] = before["notification_inbox"]?.map { $0.filter { $0.key != "body" } }
            before["notification_bodies"] = bodies
            #expect(try await Self.contents(store, tables: Self.tables + ["notification_bodies"]) == before)
            #expect(try await Self.indexes(store) == indexesBefore.union(["inbox_app_received"]).subtracting(["inbox_pending"]))
            // Step 30 appends the short trace context after them.
            #expect(try await Self.columns(store, "notification_inbox").suffix(2) == ["headers", "trace_context"])
            #expect(try await Self.columns(store, "ledger").suffix(2) == ["fact", "raw"])
            let next = try await store.backend.transaction { db in
                try await db.raw(
                    """
                    INSERT INTO notification_inbox (app_id, idempotency_key, version, headers, received_at, state)
                    VALUES ('a', 'key-6', 2, '{}', 6000, 'pending') RETURNING id
                    """
                ).first()?.decode(column: "id", as: Int64.self)
            }
            #expect(next == 6)
        }
    }

    /// Every row of the tables, each column as text, by id.
    static func contents(_ store: SQLStore, tables: [String]) async throws -> [String: [[String: String]]] {
        var contents: [String: [[String: String]]] = [:]
        for table in tables {
            let columns = try await self.columns(store, table)
            let select = columns.map { "CAST(\($0) AS TEXT) AS \($0)" }.joined(separator: ", ")
            contents[table] = try await store.backend.read { db in
                try await db.raw("SELECT \(unsafeRaw: select) FROM \(unsafeRaw: table) ORDER BY id").all().map { row in
                    var values: [String: String] = [:]
                    for column in columns { values[column] = try row.decode(column: column, as: String?.self) ?? "NULL" }
                    return values
                }
            }
        }
        return contents
    }

    static func columns(_ store: SQLStore, _ table: String) async throws -> [String] {
        try await store.backend.read { db in
            try await db.raw("SELECT name FROM pragma_table_info(\(bind: table)) ORDER BY cid").all().map {
                try $0.decode(column: "name", as: String.self)
            }
        }
    }

    static func indexes(_ store: SQLStore) async throws -> Set<String> {
        try await store.backend.read { db in
            Set(
                try await db.raw(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('notification_inbox', 'ledger') AND name NOT LIKE 'sqlite_autoindex%'"
                ).all().map { try $0.decode(column: "name", as: String.self) })
        }
    }
}
