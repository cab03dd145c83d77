import Foundation
import SQLKit
import Testing

@testable import StorekeeperStore

/// A lease's transaction commits without a flush of its own; every other keeps flushing.
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
}
