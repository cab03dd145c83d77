import Foundation
import SQLKit
import Testing

@testable import StorekeeperStore

/// PostgreSQL's plans for a burst on a new database: the store keeps the statistics of the
/// tables a burst grows, and a lease is written beside its row.
@Suite("PostgreSQL under a first burst")
struct InboxClaimPlanTests {
    @Test("a table is analyzed again once it grew by a fifth, and by at least 200 rows")
    func grownTables() {
        #expect(PostgresBackend.grown(modified: 200, live: 0))
        #expect(PostgresBackend.grown(modified: 400, live: 400))
        #expect(!PostgresBackend.grown(modified: 199, live: 0))
        #expect(!PostgresBackend.grown(modified: 199_999, live: 1_000_000))
        #expect(PostgresBackend.grown(modified: 200_000, live: 1_000_000))
    }

    @Test(
        "every connection, pooled or in a transaction, runs without the JIT compiler (430 ms to compile a 3 ms read)",
        arguments: TestBackend.available.filter { $0 == .postgresql })
    func noJIT(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let setting = { @Sendable (db: any SQLDatabase) in try await db.raw("SHOW jit").first()?.decode(column: "jit", as: String.self) }
            #expect(try await store.backend.read(setting) == "off")
            #expect(try await store.backend.transaction(setting) == "off")
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<6 { group.addTask { try await store.backend.read(setting) } }
                for try await value in group { #expect(value == "off") }
            }
        }
    }

    @Test(
        "analyzed, a new database's inbox is claimed through the chain's index, and a lease is written in place",
        arguments: TestBackend.available.filter { $0 == .postgresql })
    func statisticsAndLeases(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let postgres = try #require(store.backend as? PostgresBackend)
            // 400 pending rows over 200 chains, as a burst leaves them (arriving 20 at a time).
            for start in stride(from: 0, to: 400, by: 20) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in start..<start + 20 {
                        let row = InboxNotification(
                            appId: "a", idempotencyKey: "k\(index)", version: .v2, body: "{}", receivedAt: StoreContractTests.t0,
                            metadata: NotificationMetadata(originalTransactionId: "chain-\(index % 200)"))
                        group.addTask { _ = try await store.receive(row) }
                    }
                    try await group.waitForAll()
                }
            }
            try await postgres.analyze(["notification_inbox", "notification_bodies"])
            let counted = try await store.backend.read { db in
                try await db.raw("SELECT reltuples::bigint AS tuples FROM pg_class WHERE relname = 'notification_inbox'").first()?.int64("tuples")
            }
            #expect(counted == 400)
            let plan = try await store.backend.read { db in
                let explain: SQLQueryString = "EXPLAIN (FORMAT JSON) "
                return try await db.raw(explain + SQLStore.claimable(appId: "a", now: StoreContractTests.t0, limit: 32)).all()
                    .map { try $0.decode(column: "QUERY PLAN", as: String.self) }.joined()
            }
            // The earlier row of a chain is sought in the chain's index, not found by walking the app's rows.
            #expect(plan.contains("\"Index Name\": \"inbox_chain\""))
            // A lease changes no indexed column: with half of each page left free, it is a
            // heap-only update for all but the few rows a page has no room left for (counted by
            // the connection that makes it, before the counts are reported; a full page: none).
            let inPlace = try await store.backend.transaction { db in
                let count: SQLQueryString = "SELECT pg_stat_get_xact_tuples_hot_updated('notification_inbox'::regclass) AS hot"
                let before = try await db.raw(count).first()?.int64("hot") ?? 0
                try await db.raw("UPDATE notification_inbox SET lease_owner = 'x', lease_until = 1, attempts = attempts + 1 WHERE id > 300").run()
                return (try await db.raw(count).first()?.int64("hot") ?? 0) - before
            }
            #expect(inPlace >= 80)
            let claimed = try await store.claimPending(
                limit: 1000, owner: "w", now: StoreContractTests.t0, leaseUntil: StoreContractTests.t0.addingTimeInterval(30))
            #expect(claimed.count == 200)
            #expect(Set(claimed.compactMap { $0.metadata?.originalTransactionId }).count == 200)
        }
    }
}
