import Foundation
import SQLKit
import Testing

@testable import StorekeeperStore

/// `migrate --plan`: what a migration would run, read without changing anything.
@Suite("Migration plans")
struct MigrationPlanTests {
    @Test("each kind of statement is told by its table and what waits for it")
    func statements() {
        let index = MigrationPlan.action(of: "CREATE INDEX IF NOT EXISTS inbox_app_type ON notification_inbox (app_id, notification_type, id)")
        #expect(index.summary == "CREATE INDEX inbox_app_type ON notification_inbox" && index.table == "notification_inbox")
        #expect(index.hold == .writes && index.scales)
        let unique = MigrationPlan.action(of: "CREATE UNIQUE INDEX t_key ON t(a)")
        #expect(unique.table == "t" && unique.hold == .writes)
        let table = MigrationPlan.action(of: "CREATE TABLE IF NOT EXISTS signing_headers (digest TEXT PRIMARY KEY, header TEXT NOT NULL)")
        #expect(table.summary == "CREATE TABLE signing_headers" && !table.scales)
        let copy = MigrationPlan.action(
            of: "INSERT INTO inbox_queue (app_id, id) SELECT app_id, id FROM notification_inbox WHERE state = 'pending' ON CONFLICT DO NOTHING")
        #expect(copy.summary == "INSERT INTO inbox_queue from notification_inbox" && copy.table == "notification_inbox" && copy.scales)
        #expect(MigrationPlan.action(of: "UPDATE notification_inbox SET lease_owner = NULL").table == "notification_inbox")
        #expect(MigrationPlan.action(of: "DELETE FROM figure_months").table == "figure_months")
        let drop = MigrationPlan.action(of: "DROP INDEX IF EXISTS inbox_state_app")
        #expect(drop.summary == "DROP INDEX inbox_state_app" && drop.hold == .briefly && !drop.scales)
        let settings = MigrationPlan.action(of: "ALTER TABLE inbox_queue SET (fillfactor = 50)")
        #expect(settings.hold == .briefly && !settings.scales)
        #expect(MigrationPlan.isContract(["DROP INDEX IF EXISTS a", "drop index b"]))
        #expect(!MigrationPlan.isContract(["DROP INDEX a", "CREATE INDEX b ON t (c)"]) && !MigrationPlan.isContract([]))
        var large = index
        large.rows = MigrationPlan.largeTable
        #expect(large.isLarge)
        large.rows = MigrationPlan.largeTable - 1
        #expect(!large.isLarge)
        #expect(!MigrationPlan.Action(summary: "DROP INDEX x", rows: 10_000_000, hold: .briefly, scales: false).isLarge)
    }

    /// A database left at version 23 (the release before the lean inbox) with three rows.
    @Test(
        "a database at version 23: steps 24 to 30, the third a contract, each statement with its table's rows; nothing changes",
        arguments: TestBackend.available.filter { $0 == .sqlite || $0 == .postgresql })
    func fromVersion23(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            for (index, key) in ["a", "b", "c"].enumerated() {
                _ = try await store.receive(
                    InboxNotification(
                        appId: "app", idempotencyKey: key, version: .v2, body: "{}", receivedAt: Date(timeIntervalSince1970: Double(index))))
            }
            try await Self.backToVersion23(store)
            let plan = try await store.migrationPlan()
            #expect(plan.currentVersion == 23 && plan.latestVersion == SQLStore.latestSchemaVersion)
            #expect(plan.steps.map(\.version) == Array(24...SQLStore.latestSchemaVersion))
            #expect(plan.steps.map(\.isContract) == [false, false, true, false, false, false, false])
            let actions = plan.steps.flatMap(\.actions)
            let copy = try #require(actions.first { $0.summary == "INSERT INTO inbox_queue from notification_inbox" })
            #expect(copy.rows == 3 && copy.hold == .changedRows)
            let queue = try #require(actions.first { $0.summary == "CREATE TABLE inbox_queue" })
            #expect(queue.hold == .nothing)
            // The queue's index is built on the table the step makes: nothing waits.
            #expect(actions.first { $0.summary == "CREATE INDEX inbox_queue_chain ON inbox_queue" }?.hold == .nothing)
            // Built concurrently on PostgreSQL (the table takes writes meanwhile); SQLite holds its writer.
            let appType = try #require(actions.first { $0.index == "inbox_app_type" })
            if store.dialect == .postgresql {
                #expect(appType.summary == "CREATE INDEX inbox_app_type ON notification_inbox CONCURRENTLY" && appType.hold == .nothing)
            } else {
                #expect(appType.summary == "CREATE INDEX inbox_app_type ON notification_inbox" && appType.hold == .writes)
            }
            #expect(plan.missingIndexes.isEmpty && !actions.contains(where: \.isLarge))
            // Nothing was changed.
            #expect(try await store.schemaVersion() == 23)
            #expect(try await store.migrationPlan() == plan)
            // An index already there (built by hand, or by a step stopped before its record) costs nothing.
            try await store.backend.transaction { db in
                try await db.raw("CREATE INDEX inbox_app_type ON notification_inbox (app_id, notification_type, id)").run()
            }
            let again = try await store.migrationPlan().steps.flatMap(\.actions)
            let built = try #require(again.first { $0.index == "inbox_app_type" })
            #expect(built.summary.hasSuffix("(there already)") && built.hold == .nothing)
            #expect(try await store.migrate() == Array(24...SQLStore.latestSchemaVersion))
            #expect(try await store.migrationPlan().steps.isEmpty)
        }
    }

    /// Undoes steps 24 to 28 (the release before the lean inbox), leaving the inbox's rows.
    static func backToVersion23(_ store: SQLStore) async throws {
        try await store.backend.transaction { db in
            for table in ["inbox_queue", "inbox_discardable", "signing_headers", "retention_marks", "event_horizons"] {
                try await db.raw("DROP TABLE \(ident: table)").run()
            }
            try await db.raw("DROP INDEX inbox_app_type").run()
            // The indexes by state that version claimed with (step 26 drops them).
            try await db.raw("CREATE INDEX inbox_state_app ON notification_inbox (state, app_id, id)").run()
            try await db.raw("CREATE INDEX inbox_state_received ON notification_inbox (state, received_at)").run()
            try await db.raw("CREATE INDEX inbox_type ON notification_inbox (app_id, notification_type, state, id)").run()
            try await db.raw("ALTER TABLE schema_migrations DROP COLUMN kind").run()
            try await db.raw("DELETE FROM schema_migrations WHERE version > 23").run()
            if store.dialect == .postgresql { try await db.raw("ANALYZE notification_inbox").run() }
        }
    }

    @Test(
        "expand only: the steps that add are applied and the store works; the contract step waits for a full migration",
        arguments: TestBackend.available.filter { $0 == .sqlite || $0 == .postgresql })
    func expandOnly(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            try await Self.backToVersion23(store)
            let added = try await store.migrate(scope: .expandOnly)
            #expect(added == [24, 25, 27, 28, 29, 30])
            #expect(try await store.migrationPlan().steps.map(\.version) == [26])
            // The previous version's indexes by state are still there; this version works beside them.
            #expect(try await store.backend.read { db in try await SQLStore.indexNames(db, dialect: store.dialect) }.contains("inbox_state_app"))
            let id = try await store.receive(InboxContractTests.notification("beside")).id
            #expect(try await store.claimPending(limit: 10, owner: "w", now: Date(), leaseUntil: Date().addingTimeInterval(60)).map(\.id) == [id])
            #expect(try await store.migrate(scope: .expandOnly).isEmpty)
            #expect(try await store.migrate() == [26])
            #expect(try await store.migrationPlan().steps.isEmpty)
            #expect(try await !store.backend.read { db in try await SQLStore.indexNames(db, dialect: store.dialect) }.contains("inbox_state_app"))
        }
    }

    @Test(
        "a newer build's steps that only add are run beside, with a warning; one that removes, or of unknown kind, is refused",
        arguments: TestBackend.available.filter { $0 == .sqlite || $0 == .postgresql })
    func newerSteps(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let latest = SQLStore.latestSchemaVersion
            func record(_ version: Int, kind: String?) async throws {
                try await store.backend.transaction { db in
                    try await db.raw("INSERT INTO schema_migrations (version, applied_at, kind) VALUES (\(bind: version), 0, \(bind: kind))").run()
                }
            }
            try await record(latest + 1, kind: "expand")
            #expect(try await store.migrate().isEmpty)
            #expect(try await store.checkDatabase().contains { $0.contains("steps [\(latest + 1)] of a newer version") })
            try await record(latest + 2, kind: "contract")
            await #expect(throws: StoreError.self) { try await store.migrate() }
            await #expect(throws: StoreError.self) { try await store.checkDatabase() }
            try await store.backend.transaction { db in
                try await db.raw("UPDATE schema_migrations SET kind = NULL WHERE version = \(bind: latest + 2)").run()
            }
            await #expect(throws: StoreError.self) { try await store.migrate() }
        }
    }

    @Test(
        "PostgreSQL: an index a failed concurrent build left invalid is dropped and built again at the next migration",
        arguments: TestBackend.available.filter { $0 == .postgresql })
    func invalidIndexRebuilt(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            for key in ["a", "b"] {
                _ = try await store.receive(
                    InboxNotification(appId: "app", idempotencyKey: key, version: .v2, body: "{}", receivedAt: Date(timeIntervalSince1970: 1)))
            }
            try await store.backend.write { db in try await db.raw("DROP INDEX inbox_app_type").run() }
            // A unique build over two rows of one app fails and leaves the index invalid.
            await #expect(throws: (any Error).self) {
                try await store.backend.write { db in
                    try await db.raw("CREATE UNIQUE INDEX CONCURRENTLY inbox_app_type ON notification_inbox (app_id)").run()
                }
            }
            #expect(try await store.invalidIndexes() == ["inbox_app_type"])
            #expect(try await store.migrate().isEmpty)
            #expect(try await store.invalidIndexes().isEmpty)
            let row = try await store.backend.read { db in
                try await db.raw(
                    """
                    SELECT i.indisunique AS is_unique, pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i
                    JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'inbox_app_type'
                    """
                ).first()
            }
            #expect(try row?.decode(column: "is_unique", as: Bool.self) == false)
            #expect(try row?.string("definition").contains("(app_id, notification_type, id)") == true)
        }
    }
}
