import Foundation
import PostgresKit
import SQLKit
import Testing

@testable import StorekeeperStore

/// The store's PostgreSQL rows (``StorePostgresRow``) and binds decode and encode every value as
/// PostgresKit's own path does, failures included.
@Suite("PostgreSQL rows read as PostgresKit reads them")
struct StorePostgresRowTests {
    /// Columns of every type the store reads, some it does not, and a name given twice.
    static let statement = """
        SELECT 'text' AS t, CAST(NULL AS TEXT) AS tn, CAST(42 AS BIGINT) AS i8, CAST(-7 AS INTEGER) AS i4, CAST(3 AS SMALLINT) AS i2,
        CAST(NULL AS BIGINT) AS i8n, TRUE AS b, CAST(NULL AS BOOLEAN) AS bn, CAST(1.5 AS DOUBLE PRECISION) AS d,
        CAST(2.25 AS NUMERIC) AS n, SUM(x) AS s, CAST('2026-11-29 12:00:00+00' AS TIMESTAMPTZ) AS ts, CAST('ö→🎉' AS TEXT) AS u,
        CAST('' AS TEXT) AS e, CAST(99 AS BIGINT) AS i2
        FROM (VALUES (CAST(1 AS BIGINT)), (CAST(2 AS BIGINT))) AS v (x)
        """

    @Test("every column decodes to the same value or fails as PostgresKit's row does", arguments: TestBackend.available.filter { $0 == .postgresql })
    func sameAsPostgresKit(_ backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            try await store.backend.read { db in
                let leased = try #require(db as? LeasedPostgresDatabase)
                let ours = try #require(try await db.raw("\(unsafeRaw: Self.statement)").first())
                #expect(ours is StorePostgresRow)
                let theirs = try #require(try await leased.connection.sql().raw("\(unsafeRaw: Self.statement)").first())
                #expect(ours.allColumns == theirs.allColumns)
                func same<T: Decodable & Equatable>(_ type: T.Type, _ column: String) {
                    let (a, b) = (Result { try ours.decode(column: column, as: type) }, Result { try theirs.decode(column: column, as: type) })
                    switch (a, b) {
                    case (.success(let a), .success(let b)): #expect(a == b, "\(column) as \(type)")
                    case (.failure, .failure): break
                    default: Issue.record("\(column) as \(type): \(a) against \(b)")
                    }
                }
                for column in ours.allColumns + ["missing"] {
                    same(String.self, column)
                    same(String?.self, column)
                    same(Int64.self, column)
                    same(Int64?.self, column)
                    same(Int.self, column)
                    same(Int?.self, column)
                    same(Bool.self, column)
                    same(Bool?.self, column)
                    same(Double.self, column)
                    same(Date.self, column)
                    same(Decimal.self, column)
                    #expect(try ours.decodeNil(column: column) == theirs.decodeNil(column: column), "\(column)")
                    #expect(ours.contains(column: column) == theirs.contains(column: column))
                }
                #expect(try ours.decode(column: "n", as: Double.self) == 2.25, "a numeric read as a real, as PostgresKit reads it")
                #expect(try ours.decode(column: "i4", as: Int64.self) == -7)
                #expect(try ours.decode(column: "i2", as: Int.self) == 99, "of two columns with one name, the last")
            }
        }
    }

    @Test("binds reach the server as PostgresKit binds them, nil and every store type", arguments: TestBackend.available.filter { $0 == .postgresql })
    func binds(_ backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            try await store.backend.read { db in
                let text: String? = nil
                let row = try #require(
                    try await db.raw(
                        """
                        SELECT CAST(\(bind: "a'b") AS TEXT) AS t, CAST(\(bind: text) AS TEXT) AS tn, CAST(\(bind: Int64.max) AS BIGINT) AS i,
                        CAST(\(bind: -3) AS BIGINT) AS j, CAST(\(bind: true) AS BOOLEAN) AS b, CAST(\(bind: 0.25) AS DOUBLE PRECISION) AS d,
                        \(bind: Date(timeIntervalSince1970: 0)) AS ts
                        """
                    ).first())
                #expect(try row.string("t") == "a'b")
                #expect(try row.optionalString("tn") == nil)
                #expect(try row.int64("i") == Int64.max)
                #expect(try row.int("j") == -3)
                #expect(try row.decode(column: "b", as: Bool.self))
                #expect(try row.decode(column: "d", as: Double.self) == 0.25)
                #expect(try row.decode(column: "ts", as: Date.self) == Date(timeIntervalSince1970: 0))
            }
        }
    }
}
