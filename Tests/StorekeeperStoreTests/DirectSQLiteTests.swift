import Foundation
import Logging
import NIOCore
import SQLKit
import SQLiteNIO
import Synchronization
import Testing

@testable import StorekeeperStore

/// SQLite connections driven through SQLite's C interface, with their statements kept.
@Suite("SQLite: connections driven through the C interface")
struct DirectSQLiteTests {
    static func open() throws -> DirectSQLiteConnection {
        var logger = Logger(label: "test.direct")
        logger.logLevel = .warning
        return try DirectSQLiteConnection.open(path: nil, logger: logger)
    }

    @Test("values go in and come back as SQLiteKit reads them, through kept statements used again with other values")
    func roundTrip() async throws {
        let connection = try Self.open()
        defer { connection.close() }
        let db = connection.sql()
        try await db.raw("CREATE TABLE t (id INTEGER PRIMARY KEY, n BIGINT, x REAL, s TEXT, b BLOB)").run()
        let texts = ["plain", "", "ünïcødé ✓", "with\u{0}nul", String(repeating: "long ", count: 5_000)]
        for (index, text) in texts.enumerated() {
            // The same statement text each time: the kept statement is reset and bound afresh.
            try await db.raw(
                "INSERT INTO t (id, n, x, s, b) VALUES (\(bind: index), \(bind: Int64(index) - 3_000_000_000), \(bind: Double(index) / 4), \(bind: text), \(bind: Data(text.utf8)))"
            ).run()
        }
        try await db.raw("INSERT INTO t (id, n, x, s, b) VALUES (99, NULL, NULL, NULL, NULL)").run()
        for (index, text) in texts.enumerated() {
            let row = try #require(try await db.raw("SELECT * FROM t WHERE id = \(bind: index)").first())
            #expect(try row.decode(column: "n", as: Int64.self) == Int64(index) - 3_000_000_000)
            #expect(try row.decode(column: "x", as: Double.self) == Double(index) / 4)
            #expect(try row.decode(column: "s", as: String.self) == text)
            #expect(try row.decode(column: "b", as: Data.self) == Data(text.utf8))
            #expect(row.allColumns == ["id", "n", "x", "s", "b"])
        }
        let empty = try #require(try await db.raw("SELECT * FROM t WHERE id = 99").first())
        #expect(try empty.decodeNil(column: "s"))
        #expect(try empty.decode(column: "n", as: Int64?.self) == nil)
        #expect(!empty.contains(column: "missing"))
        #expect(throws: DirectSQLiteError.self) { try empty.decode(column: "missing", as: String.self) }
        // More distinct statements than are kept: the oldest are finalized, answers stay right.
        for index in 0..<(DirectSQLiteConnection.statementCapacity + 20) {
            let row = try #require(try await db.raw("SELECT \(unsafeRaw: String(index)) AS v, COUNT(*) AS c FROM t").first())
            #expect(try row.decode(column: "v", as: Int.self) == index)
            #expect(try row.decode(column: "c", as: Int.self) == texts.count + 1)
        }
    }

    /// Without SQLite's query planner stability guarantee, binding a `LIMIT` (or a value the
    /// planner looked at) again expires the statement, which is then compiled afresh each time.
    @Test("a kept statement is not compiled again when its LIMIT or its other values change")
    func keptStatementsStayCompiled() async throws {
        let connection = try Self.open()
        defer { connection.close() }
        let db = connection.sql()
        try await db.raw("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT)").run()
        try await db.raw("CREATE INDEX t_k ON t (k)").run()
        for id in 0..<20 { try await db.raw("INSERT INTO t (id, k) VALUES (\(bind: id), \(bind: "k\(id % 3)"))").run() }
        var counts: [Int] = []
        for limit in [1, 5, 2, 7, 3] {
            let rows = try await db.raw("SELECT id FROM t WHERE k = \(bind: "k\(limit % 3)") ORDER BY id LIMIT \(bind: limit)").all()
            counts.append(rows.count)
        }
        #expect(counts == [1, 5, 2, 7, 3])
        #expect(connection.recompilations(of: "SELECT id FROM t WHERE k = ?1 ORDER BY id LIMIT ?2") == 0)
    }

    /// A statement journal larger than SQLite keeps in memory (64 KiB by default) spills to a
    /// temporary file, which SQLite's own VFS writes (the 8 MiB in-memory journal and the VFS
    /// that cut its spill into pieces are gone: BENCHMARKS.md, "SQLite's own VFS").
    @Test("a statement journal of 15 MB in one transaction spills to a file and commits")
    func statementJournalSpills() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "test.direct")
        logger.logLevel = .warning
        let connection = try DirectSQLiteConnection.open(path: directory.appendingPathComponent("journal.sqlite").path, logger: logger)
        defer { connection.close() }
        let db = connection.sql()
        try await db.raw("PRAGMA journal_mode=WAL").run()
        try await db.raw("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB NOT NULL)").run()
        try await db.raw("BEGIN").run()
        try await db.raw(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) INSERT INTO t (id, b) SELECT i, randomblob(3000) FROM n"
        ).run()
        // Every page the first statement wrote is kept in this one's journal (15 MB).
        try await db.raw("UPDATE t SET b = randomblob(3000)").run()
        try await db.raw("COMMIT").run()
        #expect(try await db.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) == 5_000)
    }

    @Test("a long read runs on NIO's thread pool and answers as a read on the calling thread does, errors included")
    func offloaded() async throws {
        let connection = try Self.open()
        defer { connection.close() }
        try await connection.sql().raw("CREATE TABLE v (n INTEGER)").run()
        for n in 1...50 { try await connection.sql().raw("INSERT INTO v (n) VALUES (\(bind: n))").run() }
        let scanning = connection.sql(offloaded: true)
        let rows = try await scanning.raw("SELECT n FROM v ORDER BY n").all().map { try $0.decode(column: "n", as: Int.self) }
        #expect(rows == Array(1...50))
        // The EventLoopFuture interface of SQLKit, used by some of its helpers.
        let sum = Mutex(0)
        try await scanning.execute(sql: SQLRaw("SELECT n FROM v")) { row in sum.withLock { $0 += (try? row.decode(column: "n", as: Int.self)) ?? 0 } }
            .get()
        #expect(sum.withLock { $0 } == 1_275)
        await #expect(throws: DirectSQLiteError.self) { try await scanning.raw("SELECT missing FROM v").run() }
    }

    @Test("an error is typed with SQLite's code and leaves the connection and its kept statement usable")
    func errors() async throws {
        let connection = try Self.open()
        let db = connection.sql()
        try await db.raw("CREATE TABLE u (k TEXT PRIMARY KEY)").run()
        try await db.raw("INSERT INTO u (k) VALUES (\(bind: "a"))").run()
        let error = try #require(
            await #expect(throws: DirectSQLiteError.self) { try await db.raw("INSERT INTO u (k) VALUES (\(bind: "a"))").run() })
        #expect(error.primary == 19)  // SQLITE_CONSTRAINT
        #expect(error.message.contains("UNIQUE"))
        try await db.raw("INSERT INTO u (k) VALUES (\(bind: "b"))").run()
        #expect(try await db.raw("SELECT COUNT(*) AS c FROM u").first()?.decode(column: "c", as: Int.self) == 2)
        await #expect(throws: DirectSQLiteError.self) { try await db.raw("SELEKT nothing").run() }
        connection.close()
        await #expect(throws: DirectSQLiteError.self) { try await db.raw("SELECT 1 AS one").run() }
    }

    /// Runs `body` with a migrated SQLite store in a file of its own (writer and readers).
    static func withFileStore(_ body: @Sendable (SQLStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-direct-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "test.direct")
        logger.logLevel = .warning
        try await SQLStore.withStore(.sqlite(path: directory.appendingPathComponent("store.sqlite").path), logger: logger, body)
    }

    /// Runs `body` with a bare SQLite backend (no schema) on a file of its own, closed afterwards.
    static func withFileBackend<T: Sendable>(_ body: (SQLiteBackend) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-backend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = try await SQLiteBackend.open(
            path: directory.appendingPathComponent("db.sqlite").path, durability: .full, logger: Logger(label: "test.backend"))
        do {
            let result = try await body(backend)
            try await backend.close()
            return result
        } catch {
            try? await backend.close()
            throw error
        }
    }

    @Test("the writer sorts in SQLite's temporary files (a migration's index over millions of rows), the readers in memory")
    func temporaryStorage() async throws {
        try await Self.withFileStore { store in
            let pragma: @Sendable (any SQLDatabase) async throws -> Int = { db in
                try await db.raw("PRAGMA temp_store").first()?.decode(column: "temp_store", as: Int.self) ?? -1
            }
            let writer = try await store.backend.write(pragma)
            let reader = try await store.backend.read(pragma)
            #expect(writer == 0)  // the default: files
            #expect(reader == 2)  // memory
        }
    }

    @Test("the storage's refusals become 503s with a reason; other errors do not")
    func storageFaults() {
        #expect(WriteHealth.storageFault(DirectSQLiteError(code: 13, message: "")) == "the disk is full")
        #expect(WriteHealth.storageFault(DirectSQLiteError(code: 10 | (3 << 8), message: "")) == "the file system refused a write (I/O error)")
        #expect(WriteHealth.storageFault(DirectSQLiteError(code: 10 | (12 << 8), message: "")) == nil)
        #expect(WriteHealth.storageFault(DirectSQLiteError(code: 8, message: ""))?.contains("read-only") == true)
        #expect(WriteHealth.storageFault(DirectSQLiteError(code: 19, message: "")) == nil)
    }

    @Test("after the storage refused a write, the writer is opened afresh before a later write, with its settings")
    func writerRenewedAfterRefusal() async throws {
        try await Self.withFileBackend { backend in
            try await backend.write { try await $0.raw("CREATE TABLE r (k INTEGER PRIMARY KEY)").run() }
            let settings: @Sendable (any SQLDatabase) async throws -> [Int] = { db in
                var values: [Int] = []
                for name in ["synchronous", "foreign_keys", "cache_size"] {
                    values.append(try await db.raw("PRAGMA \(unsafeRaw: name)").first()?.decode(column: name, as: Int.self) ?? -1)
                }
                return values
            }
            let configured = try await backend.write(settings)
            #expect(configured == [2, 1, -SQLiteBackend.writerCacheMebibytes * 1024])
            #expect(backend.writes.renewals == 0)
            // What a full disk answers, as the writing connection reports it.
            let refusal: @Sendable (any SQLDatabase) async throws -> Void = { _ in
                throw DirectSQLiteError(code: 13, message: "database or disk is full")
            }
            let refused = try #require(await #expect(throws: StoreError.self) { try await backend.write(refusal) })
            #expect(refused.code == .unavailable)
            // The next write runs on a connection opened afresh, with the writer's settings.
            #expect(try await backend.transaction(settings) == configured)
            #expect(backend.writes.renewals == 1)
            try await backend.transaction { try await $0.raw("INSERT INTO r (k) VALUES (1)").run() }
            // Another refusal once the interval is over: another renewal.
            try await Task.sleep(for: backend.writes.renewalInterval)
            await #expect(throws: StoreError.self) { try await backend.write(refusal) }
            try await backend.write { try await $0.raw("INSERT INTO r (k) VALUES (2)").run() }
            #expect(backend.writes.renewals == 2)
            #expect(try await backend.write(settings) == configured)
            let rows = try await backend.read { try await $0.raw("SELECT COUNT(*) AS c FROM r").first()?.decode(column: "c", as: Int.self) }
            #expect(rows == 2)
        }
    }

    @Test("renewals while refusals go on: at most one per interval, and at every write after one failed")
    func renewalPacing() async {
        let health = WriteHealth(logger: Logger(label: "test.health"), renewalInterval: .seconds(3_600))
        #expect(!health.renewalDue())
        let refusal = DirectSQLiteError(code: 13, message: "database or disk is full")
        func refuse() async { _ = try? await health.watch { () async throws -> Int in throw refusal } }
        await refuse()
        #expect(health.renewalDue())
        #expect(!health.renewalDue())
        await refuse()
        #expect(!health.renewalDue(), "a second refusal within the interval")
        health.renewed(succeeded: false)
        #expect(health.renewalDue())
        #expect(health.renewalDue(), "every write tries again after a failed renewal")
        health.renewed(succeeded: true)
        #expect(!health.renewalDue())
        #expect(health.renewals == 1)
    }

    @Test("an inbox row's body is kept apart, read back with the row, and removed with it")
    func bodiesApart() async throws {
        try await Self.withFileStore { store in
            let t0 = Date(timeIntervalSince1970: 1_700_000_000)
            var ids: [Int64] = []
            for index in 0..<3 {
                let body = #"{"signedPayload":"\#(index)\#(String(repeating: "x", count: 20_000))"}"#
                let row = InboxNotification(
                    appId: "a", idempotencyKey: "key-\(index)", version: .v2, body: body, receivedAt: t0.addingTimeInterval(Double(index)))
                guard case .inserted(let id) = try await store.receive(row) else {
                    Issue.record("not inserted")
                    return
                }
                ids.append(id)
                #expect(try await store.notification(id: id)?.body == body)
            }
            let claimed = try await store.claimPending(limit: 10, owner: "w", now: t0, leaseUntil: t0.addingTimeInterval(60))
            #expect(claimed.map(\.id) == ids)
            #expect(claimed.allSatisfy { $0.body.hasPrefix(#"{"signedPayload":""#) && $0.body.count > 20_000 })
            let listed = try await store.notifications(appId: "a", filter: NotificationFilter(includesBodies: true))
            #expect(Set(listed.map(\.body)) == Set(claimed.map(\.body)))
            #expect(try await store.notifications(appId: "a", filter: NotificationFilter()).allSatisfy { $0.body.isEmpty })
            for id in ids {
                try await store.apply(
                    Changeset(appId: "a", at: t0, inboxOutcome: InboxOutcome(inboxId: id, state: .rejected, failureReason: "test", processedAt: t0)))
            }
            #expect(try await store.purgeNotifications(states: [.rejected], receivedBefore: t0.addingTimeInterval(10), limit: 2) == 2)
            #expect(try await store.notification(id: ids[2])?.body.count ?? 0 > 20_000)
            let left = try await store.backend.read { db in
                try await db.raw("SELECT id FROM notification_bodies ORDER BY id").all().map { try $0.decode(column: "id", as: Int64.self) }
            }
            #expect(left == [ids[2]])
        }
    }
}
