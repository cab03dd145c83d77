import Foundation
import SQLKit

extension SQLStore {
    public func removeStoredV1Passwords() async throws -> Int {
        try await backend.transaction { db in try await Self.removeStoredV1Passwords(db) }
    }

    /// Removes the V1 passwords an earlier version stored, in the caller's transaction: once,
    /// by schema step 21 (every start did it before, reading the whole ledger: 23–60 s at a
    /// million subscriptions), and whenever asked.
    static func removeStoredV1Passwords(_ db: any SQLDatabase) async throws -> Int {
        let inbox = try await scrub(
            select: """
                SELECT id, body AS text FROM notification_bodies WHERE body LIKE '%"password"%'
                AND id IN (SELECT id FROM notification_inbox WHERE version = 1)
                """,
            update: { id, text in "UPDATE notification_bodies SET body = \(bind: text) WHERE id = \(bind: id)" }, db)
        let ledger = try await scrub(
            select: "SELECT id, raw AS text FROM ledger WHERE source = 'notificationV1' AND raw LIKE '%\"password\"%'",
            update: { id, text in "UPDATE ledger SET raw = \(bind: text) WHERE id = \(bind: id)" }, db)
        return inbox + ledger
    }

    /// Rewrites every row the query finds with the `password` member of its JSON text removed
    /// (text that is not a JSON object is emptied), 500 at a time in the order of their ids.
    private static func scrub(select: String, update: (Int64, String) -> SQLQueryString, _ db: any SQLDatabase) async throws -> Int {
        var total = 0
        var after: Int64 = 0
        while true {
            let rows = try await db.raw("\(unsafeRaw: select) AND id > \(bind: after) ORDER BY id LIMIT 500").all()
            for row in rows {
                after = try row.int64("id")
                try await db.raw(update(after, Self.removingPassword(from: try row.string("text")))).run()
            }
            total += rows.count
            if rows.count < 500 { return total }
        }
    }

    static func removingPassword(from text: String) -> String {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return "" }
        object.removeValue(forKey: "password")
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
