import SQLKit

/// The two databases the store runs on.
public enum SQLStoreDialect: String, Sendable, Hashable {
    case sqlite
    case postgresql
}

/// A database connection source: runs units of work, plain or in a transaction.
protocol SQLBackend: Sendable {
    var dialect: SQLStoreDialect { get }
    /// Runs `body` on a connection, outside any transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` like ``read(_:)``, for reads that may take long (a whole app's ledger, every
    /// chain): where reads run on the calling thread (SQLite), these run on a thread pool, so
    /// that a long read never holds one of the few threads every request needs.
    func scan<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` on a connection that writes, outside an explicit transaction: each
    /// statement commits by itself (one statement's rows all or none). On SQLite it is the
    /// writing connection, taken as a transaction takes it.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` in a transaction whose commit returns without waiting for the disk: it
    /// survives the process being killed, and a power cut may lose it (with nothing committed
    /// after it). For writes whose loss costs nothing, such as a lease, or that can be worked
    /// out again from rows already flushed, such as a notification's processing, so that they
    /// do not pay a flush each (on SQLite most of a commit's cost).
    func unflushedTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Why writes are failing now (the storage refusing them), if they are.
    var writeFailure: String? { get }
    /// A number that changes whenever another process commits to the database (SQLite's
    /// `data_version` on the writing connection); nil where other processes write all the
    /// time (PostgreSQL).
    func externalWriteMark() async throws -> Int?
    /// Keeps background machinery (a connection pool) running until cancelled.
    func run() async throws
    /// Closes connections.
    func close() async throws
}
