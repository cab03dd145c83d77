import Foundation
import SQLKit

extension SQLStore {
    public func saveApp(_ app: AppRecord) async throws {
        try await backend.transaction { db in
            try await db.raw(
                """
                INSERT INTO apps (id, bundle_id, created_at) VALUES (\(bind: app.id), \(bind: app.bundleId), \(bind: app.createdAt.millisecondsSince1970))
                ON CONFLICT (id) DO UPDATE SET bundle_id = excluded.bundle_id
                """
            ).run()
        }
    }

    public func apps() async throws -> [AppRecord] {
        try await backend.read { db in
            try await db.raw("SELECT id, bundle_id, created_at FROM apps ORDER BY id").all().map { row in
                AppRecord(id: try row.string("id"), bundleId: try row.string("bundle_id"), createdAt: try row.date("created_at"))
            }
        }
    }

    public func customerExists(appId: String, customerId: String) async throws -> Bool {
        try await backend.read { db in
            try await db.raw(
                "SELECT customer_id FROM customers WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId)"
            ).first() != nil
        }
    }

    public func recentCustomers(appId: String, limit: Int) async throws -> [String] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT customer_id FROM customers WHERE app_id = \(bind: appId)
                ORDER BY created_at DESC, customer_id LIMIT \(bind: max(0, min(limit, 1000)))
                """
            ).all().map { try $0.string("customer_id") }
        }
    }

    public func customer(appId: String, alias: CustomerAlias) async throws -> String? {
        try await backend.read { db in
            try await Self.owner(of: alias, appId: appId, db)
        }
    }

    public func customers(appId: String, aliases: [CustomerAlias]) async throws -> [CustomerAlias: String] {
        var owners: [CustomerAlias: String] = [:]
        for (kind, group) in Dictionary(grouping: Set(aliases), by: \.kind) {
            for chunk in group.map(\.value).sorted().chunked(by: 200) {
                let list = Self.list(chunk)
                let rows = try await backend.read { db in
                    try await db.raw(
                        "SELECT value, customer_id FROM customer_aliases WHERE app_id = \(bind: appId) AND kind = \(bind: kind.rawValue) AND value IN ("
                            + list + ")"
                    ).all().map { (try $0.string("value"), try $0.string("customer_id")) }
                }
                for (value, owner) in rows { owners[CustomerAlias(kind: kind, value: value)] = owner }
            }
        }
        return owners
    }

    public func aliases(appId: String, customerId: String) async throws -> [CustomerAlias] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT kind, value FROM customer_aliases WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId)
                ORDER BY kind, value
                """
            ).all().map { row in
                CustomerAlias(kind: CustomerAlias.Kind(rawValue: try row.string("kind")), value: try row.string("value"))
            }
        }
    }

    static func owner(of alias: CustomerAlias, appId: String, _ db: any SQLDatabase) async throws -> String? {
        try await db.raw(
            """
            SELECT customer_id FROM customer_aliases
            WHERE app_id = \(bind: appId) AND kind = \(bind: alias.kind.rawValue) AND value = \(bind: alias.value)
            """
        ).first()?.string("customer_id")
    }

    /// Creates the customer and links the aliases; an alias owned by another customer throws.
    static func link(_ link: CustomerLink, appId: String, at now: Int64, _ db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO customers (app_id, customer_id, created_at) VALUES (\(bind: appId), \(bind: link.customerId), \(bind: now))
            ON CONFLICT (app_id, customer_id) DO NOTHING
            """
        ).run()
        for alias in link.aliases {
            try await db.raw(
                """
                INSERT INTO customer_aliases (app_id, kind, value, customer_id, created_at)
                VALUES (\(bind: appId), \(bind: alias.kind.rawValue), \(bind: alias.value), \(bind: link.customerId), \(bind: now))
                ON CONFLICT (app_id, kind, value) DO NOTHING
                """
            ).run()
            let owner = try await owner(of: alias, appId: appId, db)
            guard owner == link.customerId else {
                throw StoreError(code: .aliasConflict, message: "\(alias.kind.rawValue) \(alias.value) belongs to another customer")
            }
        }
    }
}
