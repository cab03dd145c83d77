import Foundation
import Logging
import SQLKit

/// The store over SQL: one implementation for SQLite and PostgreSQL, every query with bound
/// parameters.
///
/// Open it with ``withStore(_:logger:migrate:_:)`` (tests, commands) or ``open(_:logger:)``
/// plus ``run()`` as a long-running service (the server), which keeps PostgreSQL's connection
/// pool alive.
public struct SQLStore: StorekeeperStorage {
    let backend: any SQLBackend
    let clock: @Sendable () -> Date
    let factCache = LedgerFactCache()
    /// Chains' ledgers, while this process is the database's writer (SQLite, served).
    let chainCache = ChainLedgerCache()
    /// The rollup changes of a bulk load, while one runs (``deferringRollups(_:)``).
    let rollupDeferral = RollupDeferral()
    /// Notifications arriving together share one durable commit.
    let inboxWrites: GroupCommit<Incoming, InboxInsertion>

    /// Which database this is.
    public var dialect: SQLStoreDialect { backend.dialect }
    public var backendName: String { backend.dialect.rawValue }
    public var writeFailure: String? { backend.writeFailure }

    init(backend: any SQLBackend, clock: @escaping @Sendable () -> Date) {
        self.backend = backend
        self.clock = clock
        inboxWrites = GroupCommit { [backend] take in try await Self.receiveAll(take, backend) }
    }

    /// Opens the database (SQLite: the file, created if missing; PostgreSQL: a pool that
    /// connects once ``run()`` runs). `clock` stamps only the migration records; `durability`
    /// applies to a SQLite file (a server always keeps ``SQLiteDurability/full``).
    public static func open(
        _ location: DatabaseLocation, logger: Logger, clock: @escaping @Sendable () -> Date = { Date() },
        durability: SQLiteDurability = .full
    ) async throws -> SQLStore {
        switch location {
        case .sqlite(let path):
            try DatabaseFiles.prepare(path: path)
            let store = SQLStore(backend: try await SQLiteBackend.open(path: path, durability: durability, logger: logger), clock: clock)
            DatabaseFiles.restrict(path: path)
            return store
        case .sqliteInMemory:
            return SQLStore(backend: try await SQLiteBackend.open(path: nil, durability: durability, logger: logger), clock: clock)
        case .postgres(let url):
            return SQLStore(backend: try PostgresBackend(url: url, logger: logger), clock: clock)
        }
    }

    /// Runs the store's background machinery until the task is cancelled.
    ///
    /// On SQLite this process is the database's writer while it runs, so chains' ledgers are
    /// cached (``ChainLedgerCache``); a commit by another process (SQLite's `data_version`,
    /// checked every second) empties the cache.
    public func run() async throws {
        guard backend.dialect == .sqlite else { return try await backend.run() }
        var mark = try? await backend.externalWriteMark()
        chainCache.setEnabled(true)
        defer { chainCache.setEnabled(false) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [backend] in try? await backend.run() }
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let now = try? await backend.externalWriteMark()
                if now == nil || now != mark { chainCache.clear() }
                mark = now
            }
            group.cancelAll()
        }
    }

    /// Closes the connections.
    public func close() async throws {
        try await backend.close()
    }

    /// Opens the store, runs `body` with it (migrated first, unless told not to), and closes it.
    public static func withStore<T: Sendable>(
        _ location: DatabaseLocation, logger: Logger, migrate: Bool = true,
        _ body: @Sendable (SQLStore) async throws -> T
    ) async throws -> T {
        let store = try await open(location, logger: logger)
        let result: Result<T, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await store.run() }
            let result: Result<T, any Error>
            do {
                if migrate { try await store.migrate() }
                result = .success(try await body(store))
            } catch {
                result = .failure(error)
            }
            group.cancelAll()
            return result
        }
        try? await store.close()
        return try result.get()
    }

    @discardableResult
    public func migrate(scope: MigrationScope) async throws -> [Int] {
        let dialect = backend.dialect
        let now = clock().millisecondsSince1970
        if dialect == .postgresql {
            // First, and committed at once: a session that starts later has the database's
            // defaults, whatever connection a pooler gives it. One opened earlier (a pooler's
            // server connection of a first start) keeps its own until it is replaced.
            try await backend.transaction { db in try await db.raw("\(unsafeRaw: SchemaMigrations.databaseDefaults)").run() }
            // Indexes on tables already there, built while the tables take writes.
            _ = try await buildIndexesConcurrently(scope: scope)
        }
        return try await backend.transaction { db in
            try await SchemaMigrations.migrate(db, dialect: dialect, now: now, scope: scope)
        }
    }

    public func schemaVersion() async throws -> Int {
        try await backend.read { db in
            let exists: Bool
            switch backend.dialect {
            case .sqlite:
                exists =
                    try await db.raw(
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = \(bind: "schema_migrations")"
                    ).first() != nil
            case .postgresql:
                exists =
                    try await db.raw(
                        "SELECT table_name FROM information_schema.tables WHERE table_name = \(bind: "schema_migrations")"
                    ).first() != nil
            }
            return exists ? try await SchemaMigrations.currentVersion(db) : 0
        }
    }

    public func ping() async throws {
        try await backend.read { db in
            _ = try await db.raw("SELECT 1 AS one").first()
        }
    }
}
