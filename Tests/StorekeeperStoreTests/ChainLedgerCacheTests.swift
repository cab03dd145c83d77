import Foundation
import Logging
import Testing

@testable import StorekeeperStore

/// A served SQLite store keeps chains' ledgers in memory (``ChainLedgerCache``); every read
/// must still answer what the database holds.
@Suite("Chain ledger cache")
struct ChainLedgerCacheTests {
    static let t0 = StoreContractTests.t0

    static func entry(_ fact: LedgerFact) -> LedgerEntry {
        LedgerEntry(appId: "a", fact: fact, source: "notificationV2", raw: "signed-payload", recordedAt: t0)
    }

    static func purchase(_ id: String, chain: String, signed: TimeInterval) -> LedgerEntry {
        entry(.purchase(StoreContractTests.purchase(id, chain: chain, signed: signed)))
    }

    /// Runs `body` with a migrated SQLite file store whose ``SQLStore/run()`` is running, and
    /// the file's path.
    static func withServedStore(_ body: @Sendable (SQLStore, String) async throws -> Void) async throws {
        var logger = Logger(label: "test.cache")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try await SQLStore.open(.sqlite(path: path), logger: logger)
        try await store.migrate()
        let service = Task { try await store.run() }
        do {
            try await waitUntil { store.chainCache.lookup(appId: "a", chains: []).generation != nil }
            try await body(store, path)
        } catch {
            service.cancel()
            _ = await service.result
            try? await store.close()
            throw error
        }
        service.cancel()
        _ = await service.result
        #expect(store.chainCache.lookup(appId: "a", chains: []).generation == nil, "the cache is off once the store stops")
        try await store.close()
    }

    /// Polls `condition` every 50 ms, for at most 120 s (a loaded machine is slow; a broken
    /// store still ends the test).
    static func waitUntil(_ condition: @Sendable () async throws -> Bool) async throws {
        for _ in 0..<2_400 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the condition did not hold within 120 seconds")
    }

    /// The chain's ledger as the database holds it (the single-chain read takes no cache).
    static func uncached(_ store: SQLStore, _ chain: String) async throws -> [String] {
        try await store.ledger(appId: "a", originalTransactionId: chain).map(\.key)
    }

    @Test("a served SQLite store answers chains from its cache, and every write of this process shows at once")
    func ownWrites() async throws {
        try await Self.withServedStore { store, _ in
            #expect(try await store.ledgers(appId: "a", originalTransactionIds: ["c1", "c2"]).isEmpty)
            #expect(store.chainCache.count == 2, "a chain without entries is cached too")

            try await store.apply(Changeset(appId: "a", at: Self.t0, entries: [Self.purchase("c1", chain: "c1", signed: 0)]))
            #expect(store.chainCache.count == 1, "only the written chain is evicted")
            var ledgers = try await store.ledgers(appId: "a", originalTransactionIds: ["c1", "c2"])
            #expect(ledgers["c1"]?.map(\.key) == (try await Self.uncached(store, "c1")))
            #expect(ledgers["c1"]?.count == 1)
            #expect(ledgers["c2"] == nil)

            // A batch of changesets evicts every chain it writes.
            try await store.apply([
                Changeset(appId: "a", at: Self.t0, entries: [Self.purchase("c1-2", chain: "c1", signed: 100)]),
                Changeset(appId: "a", at: Self.t0, entries: [Self.purchase("c2", chain: "c2", signed: 50)]),
            ])
            ledgers = try await store.ledgers(appId: "a", originalTransactionIds: ["c1", "c2"])
            #expect(ledgers["c1"]?.count == 2)
            #expect(ledgers["c2"]?.count == 1)

            // A revocation names a transaction, not always its chain: it evicts its whole app.
            let revocation = LedgerFact.ManualRevocation(transactionId: "c1-2", date: Self.t0, reason: "test")
            try await store.apply(Changeset(appId: "a", at: Self.t0, entries: [Self.entry(.revocation(revocation))]))
            ledgers = try await store.ledgers(appId: "a", originalTransactionIds: ["c1", "c2"])
            #expect(ledgers["c1"]?.count == 3)
            #expect(ledgers["c1"]?.map(\.key) == (try await Self.uncached(store, "c1")))

            // Another app's chain of the same id is its own.
            #expect(try await store.ledgers(appId: "b", originalTransactionIds: ["c1"]).isEmpty)
            // Answers from the cache are the database's.
            for chain in ["c1", "c2"] {
                let cached = try await store.ledgers(appId: "a", originalTransactionIds: [chain])[chain]
                #expect(cached?.map(\.key) == (try await Self.uncached(store, chain)))
            }
        }
    }

    @Test("a served store copies its log into the database file in the background, and that copy does not empty the cache")
    func backgroundCheckpoints() async throws {
        try await Self.withServedStore { store, path in
            #expect(try await store.ledgers(appId: "a", originalTransactionIds: ["c9"]).isEmpty)
            let before = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            // About 3 MB of bodies: far below the writer's own threshold (64 MiB of log), so only
            // the background checkpoint brings them into the file.
            let t0 = Self.t0
            for index in 0..<150 {
                let body = #"{"signedPayload":"\#(index)\#(String(repeating: "x", count: 20_000))"}"#
                _ = try await store.receive(InboxNotification(appId: "a", idempotencyKey: "cp-\(index)", version: .v2, body: body, receivedAt: t0))
            }
            try await Self.waitUntil {
                ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > before + 2_000_000
            }
            // Past the cache's once-a-second look at the file's version: still cached.
            try await Task.sleep(for: .milliseconds(1300))
            #expect(store.chainCache.count == 1)
        }
    }

    @Test("a commit to the file by another process empties the cache")
    func otherProcessWrites() async throws {
        try await Self.withServedStore { store, path in
            #expect(try await store.ledgers(appId: "a", originalTransactionIds: ["c1"]).isEmpty)
            #expect(store.chainCache.count == 1)
            var logger = Logger(label: "test.cache.other")
            logger.logLevel = .warning
            // Another store on the same file has connections of its own, as another process would.
            let other = try await SQLStore.open(.sqlite(path: path), logger: logger)
            try await other.apply(Changeset(appId: "a", at: Self.t0, entries: [Self.purchase("c1", chain: "c1", signed: 0)]))
            try await other.close()
            try await Self.waitUntil { try await store.ledgers(appId: "a", originalTransactionIds: ["c1"])["c1"]?.count == 1 }
        }
    }

    @Test("a read that began before a write does not put back what the write evicted")
    func readRacingWrite() {
        let cache = ChainLedgerCache()
        let fact = Self.purchase("c1", chain: "c1", signed: 0)
        cache.store(appId: "a", chains: ["c1"], ledgers: ["c1": [fact]], generation: 0)
        #expect(cache.count == 0, "nothing is kept while the cache is off")
        cache.setEnabled(true)
        let before = cache.lookup(appId: "a", chains: ["c1"])
        #expect(before.found.isEmpty)
        cache.endWrite(cache.beginWrite(appId: "a", entries: [fact]))
        cache.store(appId: "a", chains: ["c1"], ledgers: [:], generation: before.generation)
        #expect(cache.count == 0)
        let after = cache.lookup(appId: "a", chains: ["c1"])
        cache.store(appId: "a", chains: ["c1"], ledgers: ["c1": [fact]], generation: after.generation)
        #expect(cache.lookup(appId: "a", chains: ["c1"]).found["c1"] == [fact])
    }

    @Test("while a write is under way its chains are neither answered from the cache nor stored in it; other chains are")
    func writeUnderWay() {
        let cache = ChainLedgerCache()
        cache.setEnabled(true)
        let old = Self.purchase("c1", chain: "c1", signed: 0)
        let other = Self.purchase("c2", chain: "c2", signed: 0)
        let first = cache.lookup(appId: "a", chains: ["c1", "c2"])
        cache.store(appId: "a", chains: ["c1", "c2"], ledgers: ["c1": [old], "c2": [other]], generation: first.generation)
        let writing = cache.beginWrite(appId: "a", entries: [Self.purchase("r1", chain: "c1", signed: 60)])
        // Between the commit and the end of the write: c1 is read from the database, and what
        // a read found (before or after the commit) is not kept.
        let during = cache.lookup(appId: "a", chains: ["c1", "c2"])
        #expect(during.found["c1"] == nil)
        #expect(during.found["c2"] == [other])
        cache.store(appId: "a", chains: ["c1"], ledgers: ["c1": [old]], generation: during.generation)
        #expect(cache.lookup(appId: "a", chains: ["c1"]).found.isEmpty)
        cache.endWrite(writing)
        #expect(cache.lookup(appId: "a", chains: ["c1"]).found.isEmpty)
        let after = cache.lookup(appId: "a", chains: ["c1"])
        cache.store(appId: "a", chains: ["c1"], ledgers: ["c1": [old]], generation: after.generation)
        #expect(cache.lookup(appId: "a", chains: ["c1"]).found["c1"] == [old])
        // A revocation marks its whole app.
        let revoking = cache.beginWrite(
            appId: "a",
            entries: [
                LedgerEntry(
                    appId: "a", fact: .revocation(LedgerFact.ManualRevocation(transactionId: "c2", date: Self.t0)), source: .import,
                    recordedAt: Self.t0)
            ])
        #expect(cache.lookup(appId: "a", chains: ["c1", "c2"]).found.isEmpty)
        cache.endWrite(revoking)
    }

    @Test("the cache starts over when full")
    func bounded() {
        let cache = ChainLedgerCache(capacity: 3)
        cache.setEnabled(true)
        for index in 0..<3 {
            let lookup = cache.lookup(appId: "a", chains: ["c\(index)"])
            cache.store(appId: "a", chains: ["c\(index)"], ledgers: [:], generation: lookup.generation)
        }
        #expect(cache.count == 3)
        let lookup = cache.lookup(appId: "a", chains: ["c3"])
        cache.store(appId: "a", chains: ["c3"], ledgers: [:], generation: lookup.generation)
        #expect(cache.count == 1)
    }
}
