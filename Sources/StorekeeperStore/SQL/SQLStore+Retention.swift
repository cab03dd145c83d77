import Foundation
import SQLKit

/// Retention (``RetentionStore``): each table walked in the order its rows were written (their
/// ids), from the id the previous pass stopped after (`retention_marks`), so a pass costs the
/// rows it looks at, never the table's size. A pass stops at the first row too young, or one
/// that must wait; it steps over a row that is kept (a dead delivery, a body of a notification
/// not processed).
extension SQLStore {
    /// A row a pass looks at.
    private struct RetentionRow: Sendable {
        var id: Int64
        /// When it was written or happened (ms), compared with the cutoff.
        var at: Int64
        /// It may not go yet, nor any row after it.
        var waits: Bool
        /// It stays, and the pass goes on past it.
        var kept: Bool
        /// An event's app and chain (its horizon moves past it).
        var appId: String?
        var chain: String?
    }

    public func pruneRows(_ table: RetentionTable, before cutoff: Date, limit: Int) async throws -> RetentionPass {
        let cutoff = cutoff.millisecondsSince1970
        let limit = max(1, min(limit, 5000))
        let dialect = self.dialect
        return try await backend.transaction { db in
            // Replicas take turns (two passes deleting the same rows could deadlock).
            if dialect == .postgresql { try await db.raw("SELECT pg_advisory_xact_lock(\(bind: 7_261_002))").run() }
            let mark =
                try await db.raw("SELECT after_id FROM retention_marks WHERE name = \(bind: table.rawValue)").first()?.int64("after_id") ?? 0
            let rows = try await db.raw(Self.retentionCandidates(table, after: mark, limit: limit)).all().map { row in
                RetentionRow(
                    id: try row.int64("id"), at: try row.int64("at"), waits: try row.int("waits") != 0, kept: try row.int("kept") != 0,
                    appId: table == .events ? try row.string("app_id") : nil,
                    chain: table == .events ? try row.optionalString("original_transaction_id") : nil)
            }
            let (doomed, passed, finished) = RetentionPass.walk(
                rows, limit: limit, from: mark, id: \.id, old: { $0.at < cutoff }, waits: \.waits, kept: \.kept)
            for chunk in doomed.chunked(by: 500) { try await Self.remove(Array(chunk), of: table, db) }
            if passed > mark {
                try await db.raw(
                    """
                    INSERT INTO retention_marks (name, after_id) VALUES (\(bind: table.rawValue), \(bind: passed))
                    ON CONFLICT (name) DO UPDATE SET after_id = CASE WHEN excluded.after_id > retention_marks.after_id
                    THEN excluded.after_id ELSE retention_marks.after_id END
                    """
                ).run()
            }
            return RetentionPass(removed: doomed.count, finished: finished)
        }
    }

    /// The next `limit` rows of `table` after id `mark`, with `id`, `at`, `waits` and `kept`.
    private static func retentionCandidates(_ table: RetentionTable, after mark: Int64, limit: Int) -> SQLQueryString {
        switch table {
        case .events:
            """
            SELECT e.id, e.occurred_at AS at, e.app_id, e.original_transaction_id, CASE WHEN EXISTS (SELECT 1 FROM event_deliveries d
            WHERE d.event_id = e.id AND d.state = \(bind: DeliveryState.pending.rawValue)) THEN 1 ELSE 0 END AS waits, 0 AS kept
            FROM events e WHERE e.id > \(bind: mark) ORDER BY e.id LIMIT \(bind: limit)
            """
        case .deliveries:
            """
            SELECT id, created_at AS at, CASE WHEN state = \(bind: DeliveryState.pending.rawValue) THEN 1 ELSE 0 END AS waits,
            CASE WHEN state = \(bind: DeliveryState.dead.rawValue) THEN 1 ELSE 0 END AS kept
            FROM event_deliveries WHERE id > \(bind: mark) ORDER BY id LIMIT \(bind: limit)
            """
        case .deliveryAttempts:
            "SELECT id, at, 0 AS waits, 0 AS kept FROM delivery_attempts WHERE id > \(bind: mark) ORDER BY id LIMIT \(bind: limit)"
        case .inboxBodies:
            // A body whose row retention of the inbox removed has no row: it goes.
            """
            SELECT b.id, COALESCE(i.received_at, 0) AS at, 0 AS waits,
            CASE WHEN i.state IS NULL OR i.state = \(bind: InboxState.processed.rawValue) THEN 0 ELSE 1 END AS kept
            FROM notification_bodies b LEFT JOIN notification_inbox i ON i.id = b.id
            WHERE b.id > \(bind: mark) ORDER BY b.id LIMIT \(bind: limit)
            """
        case .audit:
            "SELECT id, at, 0 AS waits, 0 AS kept FROM audit_log WHERE id > \(bind: mark) ORDER BY id LIMIT \(bind: limit)"
        }
    }

    /// Deletes `rows` of `table` and what hangs on them.
    private static func remove(_ rows: [RetentionRow], of table: RetentionTable, _ db: any SQLDatabase) async throws {
        let ids = list(rows.map(\.id))
        switch table {
        case .events:
            try await db.raw(
                "DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM event_deliveries WHERE event_id IN (" + ids + "))"
            ).run()
            try await db.raw("DELETE FROM event_deliveries WHERE event_id IN (" + ids + ")").run()
            try await db.raw("DELETE FROM events WHERE id IN (" + ids + ")").run()
            // Each chain's events before its last removed one now count as recorded.
            var horizons: [String: [String: Int64]] = [:]
            for row in rows {
                guard let appId = row.appId, let chain = row.chain else { continue }
                horizons[appId, default: [:]][chain] = max(horizons[appId]?[chain] ?? 0, row.at + 1)
            }
            for (appId, chains) in horizons.sorted(by: { $0.key < $1.key }) {
                var values: SQLQueryString = ""
                for (index, (chain, before)) in chains.sorted(by: { $0.key < $1.key }).enumerated() {
                    values += (index == 0 ? "" : ", ") + "(\(bind: appId), \(bind: chain), \(bind: before))"
                }
                try await db.raw(
                    "INSERT INTO event_horizons (app_id, original_transaction_id, before_ms) VALUES " + values
                        + """
                         ON CONFLICT (app_id, original_transaction_id) DO UPDATE SET before_ms = CASE
                        WHEN excluded.before_ms > event_horizons.before_ms THEN excluded.before_ms ELSE event_horizons.before_ms END
                        """
                ).run()
            }
        case .deliveries:
            try await db.raw("DELETE FROM delivery_attempts WHERE delivery_id IN (" + ids + ")").run()
            try await db.raw("DELETE FROM event_deliveries WHERE id IN (" + ids + ")").run()
        case .deliveryAttempts:
            try await db.raw("DELETE FROM delivery_attempts WHERE id IN (" + ids + ")").run()
        case .inboxBodies:
            try await db.raw("DELETE FROM notification_bodies WHERE id IN (" + ids + ")").run()
        case .audit:
            try await db.raw("DELETE FROM audit_log WHERE id IN (" + ids + ")").run()
        }
    }
}
