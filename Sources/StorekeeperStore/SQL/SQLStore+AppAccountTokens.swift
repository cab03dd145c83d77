import Foundation
import SQLKit

extension SQLStore {
    public func issueAppAccountToken(appId: String, customerId: String, proposed: String, at: Date) async throws -> String {
        let token = proposed.lowercased()
        return try await backend.transaction { db in
            try await db.raw(
                """
                INSERT INTO app_account_tokens (app_id, customer_id, token, issued_at)
                VALUES (\(bind: appId), \(bind: customerId), \(bind: token), \(bind: at.millisecondsSince1970))
                ON CONFLICT (app_id, customer_id) DO NOTHING
                """
            ).run()
            let current = try await Self.currentAppAccountToken(appId: appId, customerId: customerId, db)
            if current == token {
                try await Self.link(
                    [CustomerLink(customerId: customerId, aliases: [.appAccountToken(token)])], appId: appId, at: at.millisecondsSince1970, db)
            }
            return current
        }
    }

    public func rotateAppAccountToken(appId: String, customerId: String, proposed: String, at: Date) async throws -> [String] {
        let token = proposed.lowercased()
        let kind = CustomerAlias.Kind.appAccountToken.rawValue
        return try await backend.transaction { db in
            let revoked = try await db.raw(
                """
                SELECT value FROM customer_aliases WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId) AND kind = \(bind: kind)
                ORDER BY value
                """
            ).all().map { try $0.string("value") }
            try await db.raw(
                "DELETE FROM customer_aliases WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId) AND kind = \(bind: kind)"
            ).run()
            try await db.raw(
                """
                INSERT INTO app_account_tokens (app_id, customer_id, token, issued_at)
                VALUES (\(bind: appId), \(bind: customerId), \(bind: token), \(bind: at.millisecondsSince1970))
                ON CONFLICT (app_id, customer_id) DO UPDATE SET token = excluded.token, issued_at = excluded.issued_at
                """
            ).run()
            try await Self.link(
                [CustomerLink(customerId: customerId, aliases: [.appAccountToken(token)])], appId: appId, at: at.millisecondsSince1970, db)
            return revoked
        }
    }

    static func currentAppAccountToken(appId: String, customerId: String, _ db: any SQLDatabase) async throws -> String {
        guard
            let row = try await db.raw(
                "SELECT token FROM app_account_tokens WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId)"
            ).first()
        else {
            throw StoreError(code: .corruptRow, message: "the app account token of \(customerId) vanished")
        }
        return try row.string("token")
    }
}
