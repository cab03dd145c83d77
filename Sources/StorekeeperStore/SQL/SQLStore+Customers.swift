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
        for chunk in Array(Set(aliases)).chunked(by: 200) {
            owners.merge(try await backend.read { db in try await Self.owners(of: chunk, appId: appId, db) }) { first, _ in first }
        }
        return owners
    }

    /// The customers `aliases` belong to (those linked), a query per kind and 200 values.
    static func owners(of aliases: some Collection<CustomerAlias>, appId: String, _ db: any SQLDatabase) async throws -> [CustomerAlias: String] {
        var owners: [CustomerAlias: String] = [:]
        for (kind, group) in Dictionary(grouping: Set(aliases), by: \.kind) {
            for chunk in group.map(\.value).sorted().chunked(by: 200) {
                let rows = try await db.raw(
                    "SELECT value, customer_id FROM customer_aliases WHERE app_id = \(bind: appId) AND kind = \(bind: kind.rawValue) AND value IN ("
                        + Self.list(chunk) + ")"
                ).all()
                for row in rows { owners[CustomerAlias(kind: kind, value: try row.string("value"))] = try row.string("customer_id") }
            }
        }
        return owners
    }

    public func aliases(appId: String, customerId: String) async throws -> [CustomerAlias] {
        // Ordered here, by kind then value in bytes as SQLite orders text: with `ORDER BY` in the
        // statement, SQLite walked every alias of the app by the primary key to spare itself a
        // sort (2.4 s at a million customers) instead of reading the customer's few.
        try await backend.read { db in
            try await db.raw(
                "SELECT kind, value FROM customer_aliases WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId)"
            ).all().map { row in
                CustomerAlias(kind: CustomerAlias.Kind(rawValue: try row.string("kind")), value: try row.string("value"))
            }
        }.sorted { first, second in
            first.kind.rawValue == second.kind.rawValue
                ? first.value.utf8.lexicographicallyPrecedes(second.value.utf8)
                : first.kind.rawValue.utf8.lexicographicallyPrecedes(second.kind.rawValue.utf8)
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

    /// Creates the customers and links their aliases, with multi-row statements (a bulk import
    /// links thousands of customers per transaction; on PostgreSQL each statement is a round
    /// trip); an alias owned by another customer throws (of two links naming one alias, the
    /// first has it).
    static func link(_ links: [CustomerLink], appId: String, at now: Int64, _ db: any SQLDatabase) async throws {
        for chunk in links.map(\.customerId).chunked(by: 500) {
            var insert: SQLQueryString = "INSERT INTO customers (app_id, customer_id, created_at) VALUES "
            for (index, customerId) in chunk.enumerated() {
                insert += (index == 0 ? "" : ", ") + "(\(bind: appId), \(bind: customerId), \(bind: now))"
            }
            try await db.raw(insert + " ON CONFLICT (app_id, customer_id) DO NOTHING").run()
        }
        let claims = links.flatMap { link in link.aliases.map { (alias: $0, customerId: link.customerId) } }
        for chunk in claims.chunked(by: 500) {
            var insert: SQLQueryString = "INSERT INTO customer_aliases (app_id, kind, value, customer_id, created_at) VALUES "
            for (index, claim) in chunk.enumerated() {
                insert +=
                    (index == 0 ? "" : ", ")
                    + "(\(bind: appId), \(bind: claim.alias.kind.rawValue), \(bind: claim.alias.value), \(bind: claim.customerId), \(bind: now))"
            }
            try await db.raw(insert + " ON CONFLICT (app_id, kind, value) DO NOTHING").run()
        }
        let owners = try await owners(of: claims.map(\.alias), appId: appId, db)
        for claim in claims where !CustomerId.same(owners[claim.alias], claim.customerId) {
            throw StoreError(code: .aliasConflict, message: "\(claim.alias.kind.rawValue) \(claim.alias.value) belongs to another customer")
        }
    }
}
