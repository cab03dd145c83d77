import Foundation
import SQLKit
import Testing

@testable import StorekeeperStore

/// A lease's transaction, and a notification's processing (worked out again from its inbox row
/// if a power cut loses it), commit without a flush of their own; every other keeps flushing.
@Suite("SQLite transactions without a flush")
struct UnflushedTransactionTests {
    static func synchronous(_ backend: SQLiteBackend) async throws -> Int {
        try await backend.write { db in try #require(try await db.raw("PRAGMA synchronous").first()).decode(column: "synchronous", as: Int.self) }
    }

    @Test("commits its rows at synchronous NORMAL, then the configured FULL is back, also after a failure")
    func relaxesOnlyItself() async throws {
        try await DirectSQLiteTests.withFileBackend { backend in try await Self.relaxesOnlyItself(backend) }
    }

    static func relaxesOnlyItself(_ backend: SQLiteBackend) async throws {
        try await backend.transaction { db in try await db.raw("CREATE TABLE t (x INTEGER)").run() }
        #expect(try await Self.synchronous(backend) == 2)
        let inside = try await backend.unflushedTransaction { db in
            try await db.raw("INSERT INTO t VALUES (1)").run()
            return try #require(try await db.raw("PRAGMA synchronous").first()).decode(column: "synchronous", as: Int.self)
        }
        #expect(inside == 1)
        #expect(try await Self.synchronous(backend) == 2)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await backend.unflushedTransaction { db in
                try await db.raw("INSERT INTO t VALUES (2)").run()
                throw Refused()
            }
        }
        #expect(try await Self.synchronous(backend) == 2)
        let rows = try await backend.read { db in try await db.raw("SELECT x FROM t").all().map { try $0.decode(column: "x", as: Int.self) } }
        #expect(rows == [1])
    }

    @Test("changesets that all record inbox outcomes commit unflushed; one without, or any other write, is flushed")
    func processingCommitsUnflushed() async throws {
        try await DirectSQLiteTests.withFileStore { store in
            let backend = try #require(store.backend as? SQLiteBackend)
            let t0 = StoreContractTests.t0
            var ids: [Int64] = []
            for index in 0..<3 {
                let row = InboxNotification(appId: "a", idempotencyKey: "k\(index)", version: .v2, body: #"{"signedPayload":"x"}"#, receivedAt: t0)
                guard case .inserted(let id) = try await store.receive(row) else { throw Unexpected() }
                ids.append(id)
            }
            let before = backend.unflushedCommits.value.load(ordering: .relaxed)
            func processed(_ id: Int64, chain: String) -> Changeset {
                Changeset(
                    appId: "a", at: t0, entries: [ChainLedgerCacheTests.purchase("t-\(chain)", chain: chain, signed: 0)],
                    inboxOutcome: InboxOutcome(inboxId: id, state: .processed, processedAt: t0))
            }
            try await store.apply([processed(ids[0], chain: "c0"), processed(ids[1], chain: "c1")])
            #expect(backend.unflushedCommits.value.load(ordering: .relaxed) == before + 1)
            try await store.apply(processed(ids[2], chain: "c2"))
            #expect(backend.unflushedCommits.value.load(ordering: .relaxed) == before + 2)
            // A fact from anywhere else (a purchase posted by the app, a reconciliation) has no
            // durable source to be worked out again from: flushed, alone or in company.
            let plain = Changeset(appId: "a", at: t0, entries: [ChainLedgerCacheTests.purchase("t-c3", chain: "c3", signed: 0)])
            try await store.apply(plain)
            try await store.apply([processed(ids[0], chain: "c4"), plain])
            #expect(backend.unflushedCommits.value.load(ordering: .relaxed) == before + 2)
            let states = try await store.notifications(appId: "a", filter: NotificationFilter()).map(\.state)
            #expect(states == [.processed, .processed, .processed])
            #expect(try await store.ledger(appId: "a").count == 5)
        }
    }

    struct Unexpected: Error {}
}
