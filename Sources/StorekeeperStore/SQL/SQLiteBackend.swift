import Logging
import NIOCore
import SQLKit
import SQLiteKit
import SQLiteNIO

/// SQLite: one connection to a file in WAL mode (or in memory), one unit of work at a time.
///
/// SQLite allows one writer; serializing here makes every transaction the single writer and
/// lets `BEGIN IMMEDIATE` take the write lock up front, so a lease can never be taken twice.
struct SQLiteBackend: SQLBackend {
    let connection: SQLiteConnection
    let lock = AsyncLock()
    var dialect: SQLStoreDialect { .sqlite }

    static func open(path: String?, logger: Logger) async throws -> SQLiteBackend {
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: storage, logger: logger).get()
        } catch {
            throw StoreError(code: .unavailable, message: "cannot open the SQLite database: \(error)")
        }
        let db = connection.sql()
        if path != nil {
            try await db.raw("PRAGMA journal_mode=WAL").run()
        }
        try await db.raw("PRAGMA synchronous=FULL").run()
        try await db.raw("PRAGMA foreign_keys=ON").run()
        try await db.raw("PRAGMA busy_timeout=5000").run()
        return SQLiteBackend(connection: connection)
    }

    func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let db = connection.sql()
        return try await lock.withLock { try await body(db) }
    }

    func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let db = connection.sql()
        return try await lock.withLock {
            try await db.raw("BEGIN IMMEDIATE").run()
            do {
                let result = try await body(db)
                try await db.raw("COMMIT").run()
                return result
            } catch {
                try? await db.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    func run() async throws {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }

    func close() async throws {
        try await connection.close().get()
    }
}
