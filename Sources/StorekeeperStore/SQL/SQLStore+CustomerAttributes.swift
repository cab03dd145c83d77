import Foundation
import SQLKit

/// Customers' attributes and keyset pages of customers (``CustomerAttributeStore``).
extension SQLStore {
    public func customerAttributes(appId: String, customerId: String) async throws -> [CustomerAttribute] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT key, value, updated_at FROM customer_attributes
                WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId) ORDER BY key
                """
            ).all().map { row in
                CustomerAttribute(key: try row.string("key"), value: try row.optionalString("value"), updatedAt: try row.date("updated_at"))
            }
        }
    }

    public func setCustomerAttributes(appId: String, customerId: String, _ attributes: [CustomerAttribute], at: Date) async throws {
        guard !attributes.isEmpty else { return }
        // Of two writes of one key in the same call, the later one.
        let latest = Dictionary(attributes.map { ($0.key, $0) }, uniquingKeysWith: { $1.updatedAt >= $0.updatedAt ? $1 : $0 })
        try await backend.transaction { db in
            try await Self.link([CustomerLink(customerId: customerId)], appId: appId, at: at.millisecondsSince1970, db)
            for chunk in latest.values.sorted(by: { $0.key < $1.key }).chunked(by: 200) {
                var insert: SQLQueryString = "INSERT INTO customer_attributes (app_id, customer_id, key, value, updated_at) VALUES "
                for (index, attribute) in chunk.enumerated() {
                    insert +=
                        (index == 0 ? "" : ", ")
                        + "(\(bind: appId), \(bind: customerId), \(bind: attribute.key), \(bind: attribute.value), \(bind: attribute.updatedAt.millisecondsSince1970))"
                }
                try await db.raw(
                    insert
                        + """
                         ON CONFLICT (app_id, customer_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        WHERE excluded.updated_at >= customer_attributes.updated_at
                        """
                ).run()
            }
            let kept =
                try await db.raw(
                    "SELECT COUNT(*) AS n FROM customer_attributes WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId)"
                ).first()?.int64("n") ?? 0
            guard kept <= Int64(CustomerAttribute.maximumPerCustomer) else {
                throw StoreError(code: .limitReached, message: "a customer keeps at most \(CustomerAttribute.maximumPerCustomer) attributes")
            }
        }
    }

    public func customerPage(appId: String, after: String?, limit: Int) async throws -> [String] {
        let limit = max(1, min(limit, 1000))
        // PostgreSQL orders by the database's collation unless told: bytes, through the
        // `customers_bytes` index.
        let bytes: SQLQueryString = dialect == .postgresql ? #" COLLATE "C""# : ""
        return try await backend.read { db in
            var query: SQLQueryString = "SELECT customer_id FROM customers WHERE app_id = \(bind: appId)"
            if let after { query += " AND customer_id" + bytes + " > \(bind: after)" }
            query += " ORDER BY customer_id" + bytes + " LIMIT \(bind: limit)"
            return try await db.raw(query).all().map { try $0.string("customer_id") }
        }
    }
}
