import Foundation
import Logging
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
    let client: PostgresClient
    let logger: Logger
    let acquireTimeout: Duration
    var dialect: SQLStoreDialect { .postgresql }

    init(url: String, logger: Logger) throws {
        let settings = try PostgresSettings(url: url)
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: settings.tls)
        configuration.options.maximumConnections = 16
        configuration.options.connectTimeout = settings.acquireTimeout
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        acquireTimeout = settings.acquireTimeout
        self.logger = logger
    }

    func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { body in
            try await bounded { leased in
                try await client.withConnection { connection in
                    leased()
                    return try await body(connection.sql(queryLogLevel: nil))
                }
            }
        }
    }

    func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await read(body)
    }

    func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { body in
            try await bounded { leased in
                do {
                    return try await client.withTransaction(logger: logger) { connection in
                        leased()
                        return try await body(connection.sql(queryLogLevel: nil))
                    }
                } catch let error as PostgresTransactionError {
                    // The caller's own error (an alias conflict) is what matters, not the wrapper.
                    if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
                    throw error
                }
            }
        }
    }

    /// Runs `operation`, giving up with ``StoreError/Code/unavailable`` when it has not been
    /// handed a connection (it calls `leased`) within ``acquireTimeout``; a connection lost
    /// mid-operation is reported the same way. Once leased, the operation runs to its end.
    private func bounded<T: Sendable>(
        _ operation: @escaping @Sendable (_ leased: @escaping @Sendable () -> Void) async throws -> T
    ) async throws -> T {
        let leased = LeaseFlag()
        let timeout = acquireTimeout
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await operation { leased.set() } }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                while let result = try await group.next() {
                    if let value = result {
                        group.cancelAll()
                        return value
                    }
                    if !leased.isSet {
                        group.cancelAll()
                        throw StoreError(code: .unavailable, message: "no PostgreSQL connection within \(timeout)")
                    }
                }
                throw StoreError(code: .unavailable, message: "the PostgreSQL operation ended without a result")
            }
        } catch let error as PSQLError where Self.meansUnreachable(error) {
            throw StoreError(code: .unavailable, message: "PostgreSQL is unreachable (\(error.code))")
        }
    }

    /// Whether an error says the server cannot be reached (rather than refusing a query).
    static func meansUnreachable(_ error: PSQLError) -> Bool {
        [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed, .sslUnsupported]
            .contains(error.code)
    }

    func run() async throws {
        await client.run()
    }

    func close() async throws {}
}

/// Whether an operation has been handed its connection yet.
private final class LeaseFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
