import Foundation
import SQLKit

extension SQLStore {
    @discardableResult
    public func saveDashboardUser(_ user: DashboardUser) async throws -> Bool {
        let apps = try user.apps.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        return try await backend.transaction { db in
            let stored = try await db.raw("SELECT password_hash FROM dashboard_users WHERE email = \(bind: user.email)").first()
            if let stored, try stored.string("password_hash") != user.passwordHash {
                try await db.raw("DELETE FROM dashboard_sessions WHERE email = \(bind: user.email)").run()
            }
            try await db.raw(
                """
                INSERT INTO dashboard_users (email, password_hash, role, apps, created_at, updated_at)
                VALUES (\(bind: user.email), \(bind: user.passwordHash), \(bind: user.role.rawValue), \(bind: apps),
                \(bind: user.createdAt.millisecondsSince1970), \(bind: user.updatedAt.millisecondsSince1970))
                ON CONFLICT (email) DO UPDATE SET password_hash = excluded.password_hash, role = excluded.role, apps = excluded.apps,
                updated_at = excluded.updated_at
                """
            ).run()
            return stored == nil
        }
    }

    public func dashboardUser(email: String) async throws -> DashboardUser? {
        try await backend.read { db in
            try await db.raw("SELECT * FROM dashboard_users WHERE email = \(bind: email.lowercased())").first().map(Self.dashboardUser)
        }
    }

    public func dashboardUsers() async throws -> [DashboardUser] {
        try await backend.read { db in
            try await db.raw("SELECT * FROM dashboard_users ORDER BY email").all().map(Self.dashboardUser)
        }
    }

    public func createDashboardSession(_ session: DashboardSession) async throws {
        try await backend.transaction { db in
            try await db.raw("DELETE FROM dashboard_sessions WHERE expires_at <= \(bind: session.createdAt.millisecondsSince1970)").run()
            try await db.raw(
                """
                INSERT INTO dashboard_sessions (token_hash, email, created_at, expires_at)
                VALUES (\(bind: session.tokenHash), \(bind: session.email), \(bind: session.createdAt.millisecondsSince1970),
                \(bind: session.expiresAt.millisecondsSince1970))
                """
            ).run()
        }
    }

    public func dashboardSession(tokenHash: String, now: Date) async throws -> DashboardSession? {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM dashboard_sessions WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now.millisecondsSince1970)
                """
            ).first().map { row in
                DashboardSession(
                    tokenHash: try row.string("token_hash"), email: try row.string("email"), createdAt: try row.date("created_at"),
                    expiresAt: try row.date("expires_at"))
            }
        }
    }

    public func deleteDashboardSession(tokenHash: String) async throws {
        try await backend.transaction { db in
            try await db.raw("DELETE FROM dashboard_sessions WHERE token_hash = \(bind: tokenHash)").run()
        }
    }

    static func dashboardUser(_ row: any SQLRow) throws -> DashboardUser {
        let roleText = try row.string("role")
        guard let role = DashboardUser.Role(rawValue: roleText) else {
            throw StoreError(code: .corruptRow, message: "dashboard user with unknown role \(roleText.prefix(32))")
        }
        let apps = try row.optionalString("apps").map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        return DashboardUser(
            email: try row.string("email"), passwordHash: try row.string("password_hash"), role: role, apps: apps,
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }
}
