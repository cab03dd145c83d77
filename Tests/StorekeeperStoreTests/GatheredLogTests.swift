import CSQLiteConfig
import Foundation
import Logging
import SQLKit
import Testing

@testable import StorekeeperStore

/// The writer's write-ahead log written a transaction at a time (`STOREKEEPER_SQLITE_LOG_VFS`):
/// fewer writes to the file, and nothing another connection could miss or a crash could lose
/// that SQLite alone would not.
@Suite("SQLite: the writer's log written a transaction at a time", .serialized)
struct GatheredLogTests {
    static var logger: Logger {
        var logger = Logger(label: "test.log-vfs")
        logger.logLevel = .warning
        return logger
    }

    /// A fresh database file in WAL mode with a gathering writer and a plain reader.
    static func withDatabase(
        synchronous: String = "FULL",
        _ body: (_ writer: any SQLDatabase, _ reader: any SQLDatabase, _ path: String, _ writing: DirectSQLiteConnection) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gathered-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let writing = try DirectSQLiteConnection.open(path: path, writing: .gatheringLog, logger: logger)
        defer { writing.close() }
        let writer = writing.sql()
        try await writer.raw("PRAGMA journal_mode=WAL").run()
        try await writer.raw("PRAGMA synchronous=\(unsafeRaw: synchronous)").run()
        try await writer.raw("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)").run()
        let reading = try DirectSQLiteConnection.open(path: path, logger: logger)
        defer { reading.close() }
        try await body(writer, reading.sql(), path, writing)
    }

    static func count(_ db: any SQLDatabase) async throws -> Int {
        try await db.raw("SELECT COUNT(*) AS n FROM t").first().map { try $0.decode(column: "n", as: Int.self) } ?? -1
    }

    @Test("the VFS is registered as the program loads")
    func registered() {
        #expect(DirectSQLiteConnection.logGatheringAvailable)
    }

    @Test(
        "each commit is visible to another connection as soon as it returns, whatever the synchronous setting, with two writes per transaction",
        arguments: ["FULL", "NORMAL", "OFF"])
    func visibleAtOnce(synchronous: String) async throws {
        try await Self.withDatabase(synchronous: synchronous) { writer, reader, _, writing in
            // The log is opened by the first write.
            try await writer.raw("INSERT INTO t (id, body) VALUES (0, 'opens the log')").run()
            let before = try #require(writing.logWrites())
            let body = String(repeating: "0123456789abcdef", count: 1_000)
            for index in 1...60 {
                try await writer.raw("INSERT INTO t (id, body) VALUES (\(bind: index), \(bind: body))").run()
                #expect(try await Self.count(reader) == index + 1, "after commit \(index)")
            }
            let after = try #require(writing.logWrites())
            let requested = after.requested - before.requested
            let made = after.made - before.made
            // Each 16 kB row's transaction is several frames of two writes each in SQLite; the
            // VFS writes up to the commit frame's header, then its page.
            #expect(requested >= 60 * 8)
            #expect(made <= 60 * 2, "\(made) writes made for \(requested) asked")
        }
    }

    @Test("transactions larger than the gathering buffer, rolled back, and rewritten in place read back exactly")
    func largeAndRolledBack() async throws {
        try await Self.withDatabase { writer, reader, _, _ in
            // A small cache makes SQLite spill a long transaction's pages to the log before
            // its commit, and write some of them again.
            try await writer.raw("PRAGMA cache_size=8").run()
            let big = String(repeating: "x", count: 300_000)
            try await writer.raw("BEGIN").run()
            for index in 1...20 {
                try await writer.raw("INSERT INTO t (id, body) VALUES (\(bind: index), \(bind: big + String(index)))").run()
            }
            try await writer.raw("UPDATE t SET body = body || '!' WHERE id % 2 = 0").run()
            try await writer.raw("COMMIT").run()
            try await writer.raw("BEGIN").run()
            try await writer.raw("DELETE FROM t WHERE id > 5").run()
            try await writer.raw("INSERT INTO t (id, body) VALUES (100, 'gone')").run()
            try await writer.raw("ROLLBACK").run()
            #expect(try await Self.count(reader) == 20)
            for db in [writer, reader] {
                for index in [1, 2, 19, 20] {
                    let row = try #require(try await db.raw("SELECT body FROM t WHERE id = \(bind: index)").first())
                    #expect(try row.decode(column: "body", as: String.self) == big + String(index) + (index % 2 == 0 ? "!" : ""))
                }
            }
            let check = try #require(try await reader.raw("PRAGMA integrity_check").first())
            #expect(try check.decode(column: "integrity_check", as: String.self) == "ok")
        }
    }

    /// The files as a crash of the process would leave them after each commit (the shared
    /// memory index gone), opened afresh: SQLite rebuilds the index from the log, checking each
    /// frame's checksum, and must find every committed transaction.
    @Test(
        "after each commit the files alone hold every committed row, frames overwritten in place and their checksums included",
        arguments: ["FULL", "NORMAL"])
    func filesHoldEveryCommit(synchronous: String) async throws {
        try await Self.withDatabase(synchronous: synchronous) { writer, _, path, _ in
            // A cache of 8 pages spills a transaction's pages to the log before its commit, and
            // a page written twice is overwritten in place: SQLite then rewrites the checksums
            // of the frames after it, the commit frame's header among them, after the commit.
            try await writer.raw("PRAGMA cache_size=8").run()
            let copy = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("copy")
            for round in 1...6 {
                try await writer.raw("BEGIN").run()
                for index in 1...12 {
                    try await writer.raw(
                        "INSERT INTO t (id, body) VALUES (\(bind: round * 100 + index), \(bind: String(repeating: "s", count: 3_000)))"
                    ).run()
                }
                try await writer.raw("UPDATE t SET body = body || \(bind: String(round)) WHERE id > \(bind: round * 100)").run()
                try await writer.raw("COMMIT").run()
                try? FileManager.default.removeItem(at: copy)
                try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
                for suffix in ["", "-wal"] {
                    try FileManager.default.copyItem(atPath: path + suffix, toPath: copy.appendingPathComponent("db.sqlite" + suffix).path)
                }
                let recovered = try DirectSQLiteConnection.open(path: copy.appendingPathComponent("db.sqlite").path, logger: Self.logger)
                #expect(try await Self.count(recovered.sql()) == round * 12, "round \(round)")
                let check = try #require(try await recovered.sql().raw("PRAGMA integrity_check").first())
                #expect(try check.decode(column: "integrity_check", as: String.self) == "ok")
                recovered.close()
            }
        }
    }

    @Test("a checkpoint and a restarted log keep every row, and a database reopened without the VFS reads them all")
    func checkpointAndReopen() async throws {
        try await Self.withDatabase { writer, reader, path, _ in
            for round in 0..<3 {
                for index in 1...50 {
                    try await writer.raw(
                        "INSERT INTO t (id, body) VALUES (\(bind: round * 1000 + index), \(bind: String(repeating: "r", count: 5_000)))"
                    ).run()
                }
                // The log is copied, then started again from its beginning by the next commit.
                _ = try await reader.raw("PRAGMA wal_checkpoint(PASSIVE)").all()
                _ = try await writer.raw("PRAGMA wal_checkpoint(TRUNCATE)").all()
            }
            #expect(try await Self.count(reader) == 150)
            let plain = try DirectSQLiteConnection.open(path: path, logger: Self.logger)
            defer { plain.close() }
            #expect(try await Self.count(plain.sql()) == 150)
        }
    }
}
