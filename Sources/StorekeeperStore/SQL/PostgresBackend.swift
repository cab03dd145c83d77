import Foundation
import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization

/// PostgreSQL through PostgresNIO's connection pool; transactions are real server
/// transactions, and job leases use `FOR UPDATE SKIP LOCKED`.
///
/// The pool waits for a connection as long as it takes; here the wait is bounded
/// (``PostgresSettings/acquireTimeout``): when the server is down a caller gets a
/// ``StoreError/Code/unavailable`` error in seconds, and the pool keeps reconnecting in the
/// background, so everything works again as soon as the server is back.
struct PostgresBackend: SQLBackend {
    let servers: PostgresServers
    let logger: Logger
    let acquireTimeout: Duration
    var dialect: SQLStoreDialect { .postgresql }
    /// PostgreSQL reports its own storage failures as refused queries or a lost connection.
    var writeFailure: String? { nil }
    /// The connections whose session has this store's defaults (JIT off). The database's own
    /// default (``SchemaMigrations/databaseDefaults``) reaches the sessions that start after a
    /// first migration set it, through a pooler too; a connection opened before (a first
    /// start's), or by a role that may not set it, is set on its first use.
    let sessionDefaults = SessionDefaults()
    /// Writes committed through this backend (a standby's reads may follow them,
    /// ``SQLStore/standbyReads(url:maximumLag:followingWrites:logger:)``).
    let writes = WriteCount()
    /// The database the URL names.
    let database: String?
    /// The pool of the server in use (``PostgresServers``).
    var client: PostgresClient { servers.current }

    init(url: String, logger: Logger) throws {
        let settings = try PostgresSettings(url: url)
        servers = PostgresServers(settings: settings, logger: logger) { configuration in
            configuration.options.maximumConnections = 16
            // No startup parameter beyond user and database: PgBouncer refuses a connection that
            // sends one it does not know. Session defaults are the database's own
            // (``SchemaMigrations/databaseDefaults``).
            configuration.options.connectTimeout = settings.acquireTimeout
        }
        acquireTimeout = settings.acquireTimeout
        database = settings.database
        self.logger = logger
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let epoch = servers.epoch
        return try await bounded { leased in
            try await client.withConnection { connection in
                leased(connection)
                let db = LeasedPostgresDatabase(connection)
                let key = SessionDefaults.Key(epoch: epoch, connection: connection.id)
                if !sessionDefaults.contains(key) {
                    try await db.raw("\(unsafeRaw: SessionDefaults.statement)").run()
                    sessionDefaults.insert(key)
                }
                return try await body(db)
            }
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writes.counting { try await read(body) }
    }

    func scan<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await read(body)
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writes.counting { try await transactionUncounted(body) }
    }

    private func transactionUncounted<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let epoch = servers.epoch
        return try await bounded { leased in
            do {
                // Set in a transaction, a session's default holds once it commits.
                let settled = Mutex<SessionDefaults.Key?>(nil)
                let result = try await client.withTransaction(logger: logger) { connection in
                    leased(connection)
                    let db = LeasedPostgresDatabase(connection)
                    let key = SessionDefaults.Key(epoch: epoch, connection: connection.id)
                    if !sessionDefaults.contains(key) {
                        try await db.raw("\(unsafeRaw: SessionDefaults.statement)").run()
                        settled.withLock { $0 = key }
                    }
                    return try await body(db)
                }
                if let key = settled.withLock({ $0 }) { sessionDefaults.insert(key) }
                return result
            } catch let error as PostgresTransactionError {
                if let refusal = Self.statementPoolingRefusal(error) { throw refusal }
                // The caller's own error (an alias conflict) is what matters, not the wrapper.
                if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
                if let lost = [error.closureError, error.beginError, error.commitError, error.rollbackError]
                    .compactMap({ $0 as? PSQLError }).first(where: Self.meansUnreachable)
                {
                    throw lost
                }
                throw error
            }
        }
    }

    func unflushedTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction { db in
            try await db.raw("SET LOCAL synchronous_commit = off").run()
            return try await body(db)
        }
    }

    /// Runs `operation` under a watchdog, giving up with ``StoreError/Code/unavailable`` when it
    /// has not been handed a connection (it calls `leased`) within ``acquireTimeout``, or when
    /// its connection has been closed for ``lostConnectionGrace`` while it still waits: PostgresNIO
    /// does not always fail a query whose connection drops mid-flight (seen when the database's
    /// connections are cut under load), and a caller must never wait on a dead connection. An
    /// abandoned operation is cancelled and left to end by itself; the caller gets its answer now.
    private func bounded<T: Sendable>(
        _ operation: @escaping @Sendable (_ leased: @escaping @Sendable (PostgresConnection) -> Void) async throws -> T
    ) async throws -> T {
        if let unusable = servers.unusable { throw StoreError(code: .unavailable, message: unusable) }
        let lease = Lease()
        // A failover noticed meanwhile ends the wait for a connection of the old host.
        let epoch = servers.epoch
        let timeout = acquireTimeout
        let grace = Self.lostConnectionGrace
        let outcome = Outcome<T>()
        let work = Task {
            do {
                outcome.finish(.success(try await operation { lease.set($0) }))
            } catch let error as PSQLError where Self.meansUnreachable(error) {
                servers.suspect()
                outcome.finish(.failure(StoreError(code: .unavailable, message: "PostgreSQL is unreachable (\(error.code))")))
            } catch let error as PSQLError where Self.meansServerChanged(error) {
                servers.suspect()
                outcome.finish(.failure(StoreError(code: .unavailable, message: "the PostgreSQL host no longer accepts this work (failover)")))
            } catch {
                let classified = Self.classify(
                    error, connectionClosed: lease.connection?.isClosed == true, leased: lease.connection != nil, logger: logger)
                if (classified as? StoreError)?.code == .unavailable { servers.suspect() }
                outcome.finish(.failure(classified))
            }
        }
        let watchdog = Task {
            let clock = ContinuousClock()
            let start = clock.now
            var closedSince: ContinuousClock.Instant?
            while !outcome.isFinished {
                try await Task.sleep(for: .milliseconds(100))
                guard let connection = lease.connection else {
                    if servers.epoch != epoch {
                        outcome.finish(.failure(StoreError(code: .unavailable, message: "the PostgreSQL host changed (failover)")))
                    } else if clock.now - start >= timeout {
                        servers.suspect()
                        outcome.finish(.failure(StoreError(code: .unavailable, message: "no PostgreSQL connection within \(timeout)")))
                    }
                    continue
                }
                guard connection.isClosed else {
                    closedSince = nil
                    continue
                }
                let since = closedSince ?? clock.now
                closedSince = since
                if clock.now - since >= grace {
                    logger.warning("abandoned a PostgreSQL operation whose connection was lost mid-flight")
                    servers.suspect()
                    outcome.finish(.failure(StoreError(code: .unavailable, message: "the PostgreSQL connection was lost mid-operation")))
                }
            }
        }
        return try await withTaskCancellationHandler {
            // Once decided, neither task has anything left to do for the caller.
            defer {
                watchdog.cancel()
                work.cancel()
            }
            return try await outcome.value
        } onCancel: {
            work.cancel()
            watchdog.cancel()
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// How long an operation may wait on a connection that has already closed.
    static let lostConnectionGrace: Duration = .seconds(2)

    /// What the caller is told of an error that is not plainly the server being unreachable:
    /// the caller's own typed errors stay as they are; any other error on a connection that has
    /// closed (a pooled connection cut under it fails with whatever the channel said: seen in CI
    /// as a 500 where a 503 was due), from the channel itself, or before any connection was
    /// handed over (`leased` false: PostgresNIO's pool stops trying to connect after a while
    /// and fails waiting requests with its own `ConnectionPoolError`, not a `PSQLError`; seen as
    /// a 500 on a loaded machine) means the database cannot be reached now; the rest (a refused
    /// query) is passed on.
    static func classify(_ error: any Error, connectionClosed: Bool, leased: Bool = true, logger: Logger) -> any Error {
        if error is StoreError || error is CancellationError { return error }
        guard connectionClosed || !leased || error is ChannelError || error is IOError else { return error }
        logger.notice("a PostgreSQL operation failed on a lost connection", metadata: ["error.type": "\(type(of: error))"])
        return StoreError(code: .unavailable, message: "the PostgreSQL connection was lost mid-operation")
    }

    /// The error to give when `error` is PgBouncer refusing a transaction in statement pooling
    /// mode (it then closes the connection, which would otherwise read as an outage).
    static func statementPoolingRefusal(_ error: PostgresTransactionError) -> StoreError? {
        let errors = [error.beginError, error.closureError, error.commitError, error.rollbackError].compactMap { $0 as? PSQLError }
        guard errors.contains(where: { $0.serverInfo?[.message]?.contains("statement pool") == true }) else { return nil }
        return StoreError(
            code: .unsupportedDatabase,
            message: "the database is behind a PgBouncer in statement pooling mode, which cannot hold a transaction; "
                + "use pool_mode = transaction (or session) for Storekeeper's database")
    }

    /// Whether a refused query says the server has changed under the store: it became a standby
    /// or read-only (25006), is shutting down (57P01, 57P02) or starting up or in recovery
    /// (57P03). A failover in progress, not a fault of the query.
    static func meansServerChanged(_ error: PSQLError) -> Bool {
        ["25006", "57P01", "57P02", "57P03"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// Whether an error says the server cannot be reached (rather than refusing a query).
    static func meansUnreachable(_ error: PSQLError) -> Bool {
        [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed, .sslUnsupported]
            .contains(error.code)
    }

    func externalWriteMark() async throws -> Int? { nil }

    /// Runs the connection pool, and keeps the statistics of fast-growing tables fresh, until
    /// the task is cancelled.
    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await servers.run() }
            group.addTask { await keepStatistics(every: Self.statisticsInterval) }
        }
    }

    /// How often the grown tables are looked for.
    static let statisticsInterval: Duration = .seconds(2)

    /// The tables a burst of notifications grows fast, whose plans depend on their statistics.
    static let watchedTables = [
        "notification_inbox", "notification_bodies", "inbox_queue", "ledger", "events", "event_deliveries", "jobs", "customers", "customer_aliases",
    ]

    /// Analyzes the watched tables that grew by a fifth (and at least 200 rows) since their
    /// statistics were taken, every `interval`, until the task is cancelled.
    ///
    /// PostgreSQL's autovacuum does the same once a minute and at a tenth; a new database's first
    /// burst outruns it, and a planner without statistics guesses that an app's rows are a few:
    /// a claim then walked every pending row of the app for each row it took, and a chain's
    /// ledger was read through the app's index alone. Analyzing samples at most 30,000 rows of
    /// a table and blocks no reader or writer.
    func keepStatistics(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            _ = try? await analyzeGrownTables()
        }
    }

    /// One pass of ``keepStatistics(every:)``: the tables it analyzed.
    @discardableResult
    func analyzeGrownTables() async throws -> [String] {
        let grown = try await read { db in
            try await db.raw(
                "SELECT relname, n_mod_since_analyze, n_live_tup FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ("
                    + SQLStore.list(Self.watchedTables) + ")"
            ).all().compactMap { row -> String? in
                Self.grown(modified: try row.int64("n_mod_since_analyze"), live: try row.int64("n_live_tup")) ? try row.string("relname") : nil
            }.sorted()
        }
        try await analyze(grown)
        return grown
    }

    /// Whether a table with `live` rows, `modified` of them since its statistics were taken,
    /// has grown enough to take them again: by a fifth, and at least 200 rows.
    static func grown(modified: Int64, live: Int64) -> Bool {
        modified >= max(200, live / 5)
    }

    /// Takes the statistics of `tables`, each waiting for no lock: a table autovacuum is working
    /// on is left to it.
    func analyze(_ tables: [String]) async throws {
        for table in tables {
            try await transaction { db in
                try await db.raw("SET LOCAL lock_timeout = '200ms'").run()
                try await db.raw("ANALYZE \(ident: table)").run()
            }
        }
    }

    func close() async throws {}
}

/// SQLKit over a leased connection (PostgresKit's own database), keeping the connection within
/// reach of the bulk paths that bind their values without SQLKit (``BulkInsert``).
///
/// Statements run through the connection's row callback and their rows decode through
/// ``StorePostgresRow``: PostgresKit's own path hands each row over an
/// async sequence and builds a coding path for each cell it decodes, which was most of a
/// breakdown's time on the server.
struct LeasedPostgresDatabase: SQLDatabase {
    let connection: PostgresConnection
    private let database: any SQLDatabase

    init(_ connection: PostgresConnection) {
        self.connection = connection
        database = connection.sql(queryLogLevel: nil)
    }

    var logger: Logger { database.logger }
    var eventLoop: any EventLoop { database.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { database.version }
    var dialect: any SQLDialect { database.dialect }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        database.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = database.serialize(query)
        guard let bindings = try StorePostgresRow.bindings(binds) else {
            // A value PostgresKit encodes through Encodable: its own path.
            return try await database.execute(sql: query, onRow)
        }
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: connection.logger) { row in
            onRow(StorePostgresRow(row))
        }.get()
    }
}

/// The connection an operation has been handed, once it has.
/// The connections (of a pool: a failover's new pool counts its own anew) that set this store's
/// session defaults.
final class SessionDefaults: Sendable {
    struct Key: Hashable, Sendable {
        var epoch: Int
        var connection: Int
    }

    /// What a session runs once: JIT off (see ``SchemaMigrations/databaseDefaults``).
    static let statement = "SELECT set_config('jit', 'off', false)"
    /// Past this many, the set starts over: a pool replaces its connections over the days, and
    /// a connection set again costs one statement.
    static let limit = 4_096

    private let keys = Mutex<Set<Key>>([])

    func contains(_ key: Key) -> Bool { keys.withLock { $0.contains(key) } }

    func insert(_ key: Key) {
        keys.withLock { keys in
            if keys.count >= Self.limit { keys.removeAll() }
            keys.insert(key)
        }
    }
}

private final class Lease: Sendable {
    private let value = Mutex<PostgresConnection?>(nil)
    func set(_ connection: PostgresConnection) { value.withLock { $0 = connection } }
    var connection: PostgresConnection? { value.withLock { $0 } }
}

/// An operation's result, decided once: by the operation, or by its watchdog giving up.
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }
    private let state = Mutex(State())

    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Records `result` unless one was recorded already, and hands it to the waiter.
    func finish(_ result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let result = state.withLock { state -> Result<T, any Error>? in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }
}
