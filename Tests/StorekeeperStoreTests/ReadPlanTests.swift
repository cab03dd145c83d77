import Foundation
import Logging
import SQLKit
import Testing

@testable import StorekeeperStore

/// Reads whose cost at a million subscriptions depends on their plan (schema 22, SQLite): the
/// churn rows of a range come from the index alone, and the exposed customers are counted per
/// variant in an index's order rather than sorted for every request.
@Suite("Schema 22: read plans on SQLite")
struct ReadPlanTests {
    static func plan(_ store: SQLStore, _ statement: SQLQueryString) async throws -> String {
        try await store.backend.read { db in
            try await db.raw("EXPLAIN QUERY PLAN " + statement).all().map { try $0.decode(column: "detail", as: String.self) }
        }.joined(separator: "; ")
    }

    @Test("a range's churn spans are read from a covering index; exposed customers are counted without a sort; late records by sale")
    func plans() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-plans-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "test.store")
        logger.logLevel = .warning
        try await SQLStore.withStore(.sqlite(path: directory.appendingPathComponent("store.sqlite").path), logger: logger) { store in
            let churn = try await Self.plan(
                store,
                """
                SELECT ended_ms, from_ms, until_ms FROM figure_churn
                WHERE app_id = \(bind: "a") AND environment = \(bind: "Production") AND grp = \(bind: "")
                AND ended_ms >= \(bind: 1) AND ended_ms < \(bind: 2)
                """)
            #expect(churn.contains("USING COVERING INDEX figure_churn_ended_spans"), "\(churn)")
            let exposed = try await Self.plan(
                store,
                """
                SELECT variant, COUNT(*) AS exposed FROM experiment_enrolments WHERE app_id = \(bind: "a")
                AND experiment_id = \(bind: "e") GROUP BY variant
                """)
            #expect(exposed.contains("experiment_enrolments_variant") && !exposed.contains("TEMP B-TREE"), "\(exposed)")
            // An experiment's results read its records with a sale at or after now by sale,
            // not every record.
            let late = try await Self.plan(
                store,
                """
                SELECT variant, money, COUNT(*) AS customers FROM experiment_outcomes
                WHERE app_id = \(bind: "a") AND environment = \(bind: "Production") AND experiment_id = \(bind: "e")
                AND last_sale >= \(bind: 1) GROUP BY variant, money
                """)
            #expect(
                late.contains("COVERING INDEX experiment_outcomes_late (app_id=? AND environment=? AND experiment_id=? AND last_sale>?)"), "\(late)")
        }
    }
}
