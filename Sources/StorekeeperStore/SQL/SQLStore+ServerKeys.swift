import Foundation
import SQLKit

extension SQLStore {
    public func serverKey(name: String, proposed: String, now: Date) async throws -> String {
        try await backend.transaction { db in
            try await db.raw(
                """
                INSERT INTO server_keys (name, value, created_at) VALUES (\(bind: name), \(bind: proposed), \(bind: now.millisecondsSince1970))
                ON CONFLICT (name) DO NOTHING
                """
            ).run()
            guard let row = try await db.raw("SELECT value FROM server_keys WHERE name = \(bind: name)").first() else {
                throw StoreError(code: .corruptRow, message: "server key \(name) vanished")
            }
            return try row.decode(column: "value", as: String.self)
        }
    }
}
