import Foundation
import SQLKit

extension SQLStore {
    public func removeStoredV1Passwords() async throws -> Int {
        let inbox = try await scrub(
            select: """
                SELECT id, body AS text FROM notification_bodies WHERE body LIKE '%"password"%'
                AND id IN (SELECT id FROM notification_inbox WHERE version = 1)
                """,
            update: { id, text in "UPDATE notification_bodies SET body = \(bind: text) WHERE id = \(bind: id)" })
        let ledger = try await scrub(
            select: "SELECT id, raw AS text FROM ledger WHERE source = 'notificationV1' AND raw LIKE '%\"password\"%'",
            update: { id, text in "UPDATE ledger SET raw = \(bind: text) WHERE id = \(bind: id)" })
        return inbox + ledger
    }

    /// Rewrites every row the query finds with the `password` member of its JSON text removed
    /// (text that is not a JSON object is emptied), in batches.
    private func scrub(select: String, update: @escaping @Sendable (Int64, String) -> SQLQueryString) async throws -> Int {
        var total = 0
        while true {
            let changed = try await backend.transaction { db in
                let rows = try await db.raw("\(unsafeRaw: select) ORDER BY id LIMIT 500").all()
                for row in rows {
                    let text = try row.string("text")
                    try await db.raw(update(try row.int64("id"), Self.removingPassword(from: text))).run()
                }
                return rows.count
            }
            total += changed
            if changed < 500 { return total }
        }
    }

    static func removingPassword(from text: String) -> String {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return "" }
        object.removeValue(forKey: "password")
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
