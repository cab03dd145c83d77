import Foundation
import Logging
import SQLKit
import Testing

@testable import StorekeeperStore

/// Production's shape (Scripts/test-postgres-cluster.sh): a standby the dashboard's reads go to,
/// and PgBouncer in front of the primary. CI sets every URL and requires them
/// (`STOREKEEPER_REQUIRE_CLUSTER=1`); elsewhere a missing one skips its test.
enum TestCluster {
    static func url(_ name: String) -> String? {
        let value = ProcessInfo.processInfo.environment[name] ?? ""
        return value.isEmpty ? nil : value
    }

    /// The streaming standby of the primary behind `STOREKEEPER_TEST_POSTGRES_URL`.
    static let standbyURL = url("STOREKEEPER_TEST_POSTGRES_STANDBY_URL")
    /// PgBouncer in statement pooling mode in front of the same primary.
    static let statementPoolerURL = url("STOREKEEPER_TEST_POSTGRES_STATEMENT_POOLER_URL")

    static var required: Bool { ProcessInfo.processInfo.environment["STOREKEEPER_REQUIRE_CLUSTER"] == "1" }

    /// `base` naming database `name` instead of its own.
    static func url(_ base: String, database name: String) -> String {
        guard var components = URLComponents(string: base) else { return base }
        components.path = "/" + name
        return components.string ?? base
    }

    /// The URLs a test needs, or nil (the test then returns) when this run has no cluster; a CI
    /// run without one fails.
    static func need(_ names: [String?]) -> [String]? {
        let present = names.compactMap { $0 }
        guard present.count == names.count, TestBackend.postgresURL != nil else {
            if required { Issue.record("STOREKEEPER_REQUIRE_CLUSTER=1 but a cluster URL is missing") }
            return nil
        }
        return present
    }

    static let logger: Logger = {
        var logger = Logger(label: "test.cluster")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `body` with a migrated store on a fresh database of the primary and a reads store
    /// over the same database on the standby (waiting until the standby has the database).
    static func withStandby<T: Sendable>(
        maximumLag: Duration = .seconds(10), _ body: @Sendable (SQLStore, SQLStore, ReplicationWatch) async throws -> T
    ) async throws -> T? {
        guard let base = TestBackend.postgresURL, let urls = need([standbyURL]) else { return nil }
        return try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_standby_", logger: logger) { url in
            try await SQLStore.withStore(.postgres(url: url), logger: logger) { primary in
                let name = String(URLComponents(string: url)?.path.dropFirst() ?? "")
                let (reads, watch) = try primary.standbyReads(url: Self.url(urls[0], database: name), maximumLag: maximumLag, logger: logger)
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await reads.run() }
                    defer { group.cancelAll() }
                    try await eventually("the standby serves reads") { watch.snapshot?.serving == true }
                    return try await body(primary, reads, watch)
                }
            }
        }
    }

    /// Waits up to 30 s for `condition`.
    static func eventually(_ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("waited 30 s: \(what)")
        throw CancellationError()
    }
}

@Suite("PostgreSQL in production's shape: a standby and PgBouncer", .serialized)
struct PostgresTopologyTests {
    @Test("a pg_lsn's text is a 64-bit position")
    func positions() {
        #expect(ReplicationWatch.position("16/B374D848") == 0x16_B374_D848)
        #expect(ReplicationWatch.position("0/0") == 0)
        #expect(ReplicationWatch.position("FFFFFFFF/FFFFFFFF") == UInt64.max)
        #expect(ReplicationWatch.position("16") == nil)
        #expect(ReplicationWatch.position("1/100000000") == nil)
        #expect(ReplicationWatch.position("x/1") == nil)
    }

    @Test("several hosts, libpq style: in the authority or as host and port lists, with target_session_attrs")
    func hostLists() throws {
        let listed = try PostgresSettings(url: "postgres://u:p@db1:5432,db2:5433,[::1]:5434,db4/app?target_session_attrs=read-write")
        #expect(listed.hosts.map(\.host) == ["db1", "db2", "[::1]", "db4"])
        #expect(listed.hosts.map(\.port) == [5432, 5433, 5434, 5432])
        #expect(listed.targetSession == .readWrite && listed.database == "app" && listed.username == "u" && listed.password == "p")
        #expect((listed.host, listed.port) == ("db1", 5432))
        let parameters = try PostgresSettings(url: "postgres://u@x/app?host=127.0.0.1,127.0.0.2&port=6000,6001&target_session_attrs=primary")
        #expect(parameters.hosts.map(\.host) == ["127.0.0.1", "127.0.0.2"] && parameters.hosts.map(\.port) == [6000, 6001])
        #expect(parameters.targetSession == .readWrite && parameters.sslmode == "prefer")
        let onePort = try PostgresSettings(url: "postgres://u@x/app?host=a,b&port=7000&sslmode=disable")
        #expect(onePort.hosts.map(\.port) == [7000, 7000])
        #expect(try PostgresSettings(url: "postgres://u@h/app").targetSession == .any)
        // One non-loopback host among them asks for TLS.
        #expect(try PostgresSettings(url: "postgres://u@127.0.0.1,db.example.com/app").sslmode == "require")
        for bad in [
            "postgres://u@a,,b/app", "postgres://u@a:99999,b/app", "postgres://u@x/app?host=a,b&port=1,2,3",
            "postgres://u@a,b/app?target_session_attrs=standby",
        ] {
            #expect(throws: StoreError.self, "\(bad)") { try PostgresSettings(url: bad) }
        }
    }

    @Test("the lag is how long ago the primary was where the standby is; past the bound, reads stay on the primary")
    func lagFromPositions() {
        let watch = ReplicationWatch(maximumLag: .seconds(2), interval: .milliseconds(250))
        let start = ContinuousClock.now
        let date = Date()
        // Caught up: no lag, however long the primary has been idle.
        watch.record(primary: 1000, primaryAt: start, replayed: 1000, at: start, date: date)
        #expect(watch.snapshot?.lagSeconds == 0)
        #expect(watch.servesReads())
        // The primary moves on; the standby stays at 1000 (reached at `start`).
        watch.record(primary: 2000, primaryAt: start + .seconds(1), replayed: 1000, at: start + .seconds(1), date: date)
        #expect(watch.snapshot?.lagSeconds == 1)
        #expect(watch.snapshot?.lagBytes == 1000)
        #expect(watch.snapshot?.serving == true)
        watch.record(primary: 3000, primaryAt: start + .seconds(3), replayed: 1500, at: start + .seconds(3), date: date)
        #expect(watch.snapshot?.lagSeconds == 3)
        #expect(watch.snapshot?.serving == false)
        // It replays what the primary had at +1 s: two seconds behind at +3 s.
        watch.record(primary: 3000, primaryAt: start + .seconds(3), replayed: 2000, at: start + .seconds(3), date: date)
        #expect(watch.snapshot?.lagSeconds == 2)
        #expect(watch.snapshot?.serving == true)
        // Writes through the standby's own store: read there only once the standby has them.
        watch.record(primary: 3100, primaryAt: start + .seconds(3), writes: 5, replayed: 3000, at: start + .seconds(3), date: date)
        #expect(watch.servesReads(after: 5) == false)
        watch.record(primary: 3200, primaryAt: start + .seconds(3), writes: 6, replayed: 3100, at: start + .seconds(3), date: date)
        #expect(watch.servesReads(after: 5) && !watch.servesReads(after: 6))
        // A standby that does not answer, or was promoted, serves nothing.
        watch.record(primary: 3000, primaryAt: start + .seconds(4), replayed: nil, at: start + .seconds(4), date: date)
        #expect(watch.snapshot?.streaming == false)
        #expect(watch.snapshot?.serving == false)
    }

    @Test("reads go to the standby while it keeps up, writes to the primary, and what is written is read back")
    func standbyServesReads() async throws {
        try await TestCluster.withStandby { primary, reads, watch in
            try await primary.saveApp(AppRecord(id: "standby-app", bundleId: "com.example.standby", createdAt: Date()))
            // The standby's store writes through the primary too.
            try await reads.saveApp(AppRecord(id: "written-through", bundleId: "com.example.through", createdAt: Date()))
            // Read back at once (on the primary until the standby has replayed the store's own
            // write), and before long from the standby itself.
            #expect(Set(try await reads.apps().map(\.id)).isSuperset(of: ["standby-app", "written-through"]))
            try await TestCluster.eventually("the standby answers a read with both apps") {
                let before = watch.routedReads.standby
                let ids = Set(try await reads.apps().map(\.id))
                return ids.isSuperset(of: ["standby-app", "written-through"]) && watch.routedReads.standby > before
            }
            try await TestCluster.eventually("a read runs on the standby") {
                try await reads.backend.read { db in
                    try await db.raw("SELECT pg_is_in_recovery() AS standby").first()?.decode(column: "standby", as: Bool.self)
                } == true
            }
            let snapshot = try #require(watch.snapshot)
            #expect(snapshot.streaming && snapshot.serving)
            #expect(snapshot.lagSeconds < 10)
        }
    }

    @Test("a standby whose replay stops falls behind the bound, and its reads go to the primary, which has the new rows")
    func pausedStandby() async throws {
        try await TestCluster.withStandby(maximumLag: .seconds(1)) { primary, reads, watch in
            let standby = try #require((reads.backend as? StandbyBackend)?.standby)
            _ = try await standby.read { db in try await db.raw("SELECT pg_wal_replay_pause()").run() }
            do {
                try await primary.saveApp(AppRecord(id: "while-paused", bundleId: "com.example.paused", createdAt: Date()))
                // Something must keep writing for the primary's position to move past the standby's.
                try await TestCluster.eventually("the watch sees the standby lagging") {
                    try await primary.saveApp(AppRecord(id: "tick", bundleId: "com.example.tick", createdAt: Date()))
                    return watch.snapshot?.serving == false
                }
                #expect(watch.snapshot?.streaming == true)
                #expect((watch.snapshot?.lagSeconds ?? 0) > 1)
                let before = watch.routedReads.primary
                #expect(try await reads.apps().contains { $0.id == "while-paused" })
                #expect(watch.routedReads.primary == before + 1)
            } catch {
                _ = try? await standby.read { db in try await db.raw("SELECT pg_wal_replay_resume()").run() }
                throw error
            }
            _ = try await standby.read { db in try await db.raw("SELECT pg_wal_replay_resume()").run() }
            try await TestCluster.eventually("the standby catches up") { watch.snapshot?.serving == true }
        }
    }

    @Test("a standby that cannot be reached leaves every read to the primary")
    func unreachableStandby() async throws {
        guard let base = TestBackend.postgresURL else { return }
        try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_standby_", logger: TestCluster.logger) { url in
            try await SQLStore.withStore(.postgres(url: url), logger: TestCluster.logger) { primary in
                // Nothing listens on port 9 of loopback.
                var components = try #require(URLComponents(string: url))
                components.port = 9
                components.queryItems = [URLQueryItem(name: "sslmode", value: "disable"), URLQueryItem(name: "connect_timeout", value: "1")]
                let (reads, watch) = try primary.standbyReads(
                    url: try #require(components.string), maximumLag: .seconds(10), logger: TestCluster.logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await reads.run() }
                    defer { group.cancelAll() }
                    try await primary.saveApp(AppRecord(id: "only-primary", bundleId: "com.example.primary", createdAt: Date()))
                    try await TestCluster.eventually("the watch sees no standby") { watch.snapshot != nil }
                    #expect(watch.snapshot?.streaming == false)
                    #expect(try await reads.apps().map(\.id) == ["only-primary"])
                    #expect(watch.routedReads.standby == 0)
                }
            }
        }
    }

    @Test("PgBouncer in statement pooling mode is refused at start with a clear error; transaction pooling is not")
    func statementPoolingRefused() async throws {
        guard let base = TestBackend.postgresURL, let urls = TestCluster.need([TestCluster.statementPoolerURL]) else { return }
        try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_pooler_", logger: TestCluster.logger) { url in
            let name = String(URLComponents(string: url)?.path.dropFirst() ?? "")
            try await SQLStore.withStore(
                .postgres(url: TestCluster.url(urls[0], database: name)), logger: TestCluster.logger, migrate: false
            ) { store in
                let error = await #expect(throws: StoreError.self) { try await store.checkDatabase() }
                #expect(error?.code == .unsupportedDatabase)
                #expect(error?.message.contains("pool_mode = transaction") == true)
            }
            // The run's own URL (PgBouncer in transaction pooling mode, in CI) passes.
            try await SQLStore.withStore(.postgres(url: url), logger: TestCluster.logger, migrate: false) { store in
                let warnings = try await store.checkDatabase()
                #expect(warnings == [])
            }
        }
    }
}
