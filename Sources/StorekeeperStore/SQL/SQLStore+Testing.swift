import SQLKit

extension SQLStore {
    /// The store's tables, newest dependency first.
    static let tableNames = ["audit_log", "jobs", "events", "notification_inbox", "ledger", "customer_aliases", "customers", "apps", "schema_migrations"]

    /// Drops every table of the store: for test suites that share one PostgreSQL database.
    /// Never called by the server or the command line.
    public func dropEverythingForTests() async throws {
        try await backend.transaction { db in
            for table in Self.tableNames {
                try await db.raw("DROP TABLE IF EXISTS \(ident: table)").run()
            }
        }
    }
}
