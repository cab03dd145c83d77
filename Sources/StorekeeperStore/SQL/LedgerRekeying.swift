import Foundation
import SQLKit

/// Migration 4: gives every ledger row the key ``LedgerEntry/key(for:)`` builds today.
///
/// Rows are read in id order; a row whose new key an earlier row already holds is the same
/// Apple fact recorded twice (an earlier version keyed facts by a digest of their encoding,
/// so a changed encoding recorded a fact again) and is removed, keeping the first. Events
/// are not touched: they are keyed by their own causes, and a fact that is already in the
/// ledger causes none.
enum LedgerRekeying {
    static func run(_ db: any SQLDatabase) async throws {
        var after: Int64 = 0
        while true {
            let rows = try await db.raw("SELECT id, app_id, fact_key, fact FROM ledger WHERE id > \(bind: after) ORDER BY id LIMIT 1000").all()
            guard let last = rows.last else { return }
            after = try last.int64("id")
            for row in rows {
                let id = try row.int64("id")
                let appId = try row.string("app_id")
                let fact = try StoreCoding.decode(LedgerFact.self, from: try row.string("fact"), column: "fact")
                let key = LedgerEntry.key(for: fact)
                guard key != (try row.string("fact_key")) else { continue }
                let holder = try await db.raw(
                    """
                    SELECT id FROM ledger WHERE app_id = \(bind: appId) AND fact_key = \(bind: key)
                    """
                ).first()
                if holder != nil {
                    try await db.raw("DELETE FROM ledger WHERE id = \(bind: id)").run()
                } else {
                    try await db.raw("UPDATE ledger SET fact_key = \(bind: key) WHERE id = \(bind: id)").run()
                }
            }
        }
    }
}
