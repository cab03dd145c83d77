import Foundation
import Logging
import SQLKit
import Testing

@testable import StorekeeperStore

/// Schema step 17 on SQLite: the daily rollups are rebuilt without row ids, kept in the order of
/// their key, so that a read of a group's days walks neighbouring pages; no cell may change.
@Suite("Schema 17: the daily rollups in key order on SQLite")
struct ClusteredFigureDaysTests {
    @Test("a schema-16 database keeps every cell, the table has no row ids, and cells still add up on conflict")
    func rebuild() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-clustered-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "test.store")
        logger.logLevel = .warning
        try await SQLStore.withStore(.sqlite(path: directory.appendingPathComponent("store.sqlite").path), logger: logger) { store in
            // Back to schema 16's table (with row ids), holding cells written in no particular order.
            try await store.backend.transaction { db in
                try await db.raw("DROP TABLE figure_days").run()
                try await db.raw(
                    """
                    CREATE TABLE figure_days (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL, series TEXT NOT NULL,
                    day INTEGER NOT NULL, currency TEXT NOT NULL, denominator BIGINT NOT NULL, value BIGINT NOT NULL,
                    PRIMARY KEY (app_id, environment, grp, series, day, currency, denominator))
                    """
                ).run()
                for index in [7, 3, 11, 0, 5] {
                    try await db.raw(
                        """
                        INSERT INTO figure_days (app_id, environment, grp, series, day, currency, denominator, value)
                        VALUES ('a', 'Production', \(bind: index % 2 == 0 ? "" : "product=p"), 'revenue', \(bind: 20_000 + index),
                        'USD', 1, \(bind: 1_000 * index + 1))
                        """
                    ).run()
                }
                try await db.raw("DELETE FROM schema_migrations WHERE version >= 17").run()
            }
            let before = try await Self.cells(store)
            #expect(before.count == 5)
            #expect(try await Self.definition(store).contains("WITHOUT ROWID") == false)

            #expect(try await store.migrate() == Array(17...SQLStore.latestSchemaVersion))

            #expect(try await Self.cells(store) == before)
            #expect(try await Self.definition(store).contains("WITHOUT ROWID"))
            try await store.backend.transaction { db in
                try await db.raw(
                    """
                    INSERT INTO figure_days (app_id, environment, grp, series, day, currency, denominator, value)
                    VALUES ('a', 'Production', '', 'revenue', 20000, 'USD', 1, 41)
                    ON CONFLICT (app_id, environment, grp, series, day, currency, denominator)
                    DO UPDATE SET value = figure_days.value + excluded.value
                    """
                ).run()
            }
            #expect(try await Self.cells(store).first == "|revenue|20000|USD|1|42")
        }
    }

    /// Every cell as text, in key order.
    static func cells(_ store: SQLStore) async throws -> [String] {
        try await store.backend.read { db in
            try await db.raw(
                """
                SELECT grp || '|' || series || '|' || day || '|' || currency || '|' || denominator || '|' || value AS cell
                FROM figure_days ORDER BY app_id, environment, grp, series, day
                """
            ).all().map { try $0.decode(column: "cell", as: String.self) }
        }
    }

    static func definition(_ store: SQLStore) async throws -> String {
        try await store.backend.read { db in
            try await db.raw("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'figure_days'").first()?
                .decode(column: "sql", as: String.self) ?? ""
        }
    }
}
