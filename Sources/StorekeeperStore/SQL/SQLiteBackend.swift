import Logging
import NIOCore
import SQLKit
import SQLiteKit
import SQLiteNIO
import Synchronization
import VaporCSQLite

/// SQLite: one writing connection to a file in WAL mode (or in memory), one transaction at a
/// time, and for a file a few reading connections beside it. Statements run on the calling
/// thread (``DirectSQLiteConnection``), except those of ``scan(_:)``; writes run on a thread of
/// their own (``WriterThread``).
///
/// SQLite allows one writer; serializing here makes every transaction the single writer and
/// lets `BEGIN IMMEDIATE` take the write lock up front, so a lease can never be taken twice.
/// Reads outside a transaction go to the readers (WAL lets them run while the writer
/// commits), each seeing everything committed before it started; an in-memory database has
/// only the one connection.
struct SQLiteBackend: SQLBackend {
    /// The writing connection, driven directly (``DirectSQLiteConnection``): every commit waits
    /// for it.
    let connection: DirectSQLiteConnection
    let lock = AsyncLock()
    /// Where writes run (``WriterThread``).
    let writer = WriterThread(name: "sqlite-writer")
    let readers: [Reader]
    /// For a file, the connection that copies the log into the database
    /// (``checkpoints(every:)``), on threads other than the writer's.
    let checkpointer: DirectSQLiteConnection?
    /// Commits since the last checkpoint (any positive value means there is work).
    let commitsSinceCheckpoint = Tally()
    private let turns = Turns()
    let writes: WriteHealth
    /// Transactions committed without a flush of their own so far (for tests).
    let unflushedCommits = Tally()
    /// Whether commits are flushed (the configured `synchronous`).
    let durability: SQLiteDurability
    var dialect: SQLStoreDialect { .sqlite }

    /// A reading connection and the lock that gives it one read at a time.
    struct Reader: Sendable {
        let connection: DirectSQLiteConnection
        let lock = AsyncLock()
    }

    /// Whose turn it is among the readers.
    final class Turns: Sendable {
        let next = Atomic<Int>(0)
    }

    /// A count shared by the backend's copies.
    final class Tally: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Reading connections beside the writer, for a file.
    static let readerCount = 2

    /// The writer's own checkpoint threshold, in pages of log (4 KiB each). While the store's
    /// background work runs, ``checkpoints(every:)`` copies the log long before this (SQLite's
    /// default, 1,000 pages, made every thousandth page's commit do the copy on the writer, a
    /// fifth of its time under a burst); without it, the log still stays bounded.
    static let writerCheckpointPages = 16_384
    /// How often ``checkpoints(every:)`` looks for committed work to copy.
    static let checkpointInterval: Duration = .milliseconds(50)

    /// The page cache of the writing connection and of each reading one. SQLite's default
    /// (2 MiB) sends most reads of a working set back to the operating system (`pread`).
    static let writerCacheMebibytes = 16
    static let readerCacheMebibytes = 8

    /// Per-connection settings: the page cache, and for the reading connections temporary
    /// B-trees (sorting, grouping) in memory rather than in files under `/var/tmp`. The writer
    /// keeps SQLite's files: a migration building an index over millions of rows sorts them all
    /// (a million subscriptions' ledger took 7 GB of memory that way).
    private static func tune(_ db: any SQLDatabase, cacheMebibytes: Int, temporaryInMemory: Bool) async throws {
        try await db.raw("PRAGMA cache_size=\(unsafeRaw: String(-cacheMebibytes * 1024))").run()
        if temporaryInMemory { try await db.raw("PRAGMA temp_store=MEMORY").run() }
    }

    /// The writing connection's settings, as it opens and when it opens afresh
    /// (``renewWriterIfDue()``).
    private static func configureWriter(_ db: any SQLDatabase, onFile: Bool, durability: SQLiteDurability) async throws {
        if onFile {
            try await db.raw("PRAGMA journal_mode=WAL").run()
            try await db.raw("PRAGMA wal_autocheckpoint=\(unsafeRaw: String(writerCheckpointPages))").run()
        }
        try await db.raw("PRAGMA synchronous=\(unsafeRaw: durability.rawValue)").run()
        try await db.raw("PRAGMA foreign_keys=ON").run()
        try await db.raw("PRAGMA busy_timeout=5000").run()
        try await tune(db, cacheMebibytes: writerCacheMebibytes, temporaryInMemory: !onFile)
    }

    static func open(path: String?, durability: SQLiteDurability, logger: Logger) async throws -> SQLiteBackend {
        let connection: DirectSQLiteConnection
        do {
            connection = try DirectSQLiteConnection.open(path: path, logger: logger)
        } catch {
            throw StoreError(code: .unavailable, message: "cannot open the SQLite database: \(error)")
        }
        try await configureWriter(connection.sql(), onFile: path != nil, durability: durability)
        var readers: [Reader] = []
        var checkpointer: DirectSQLiteConnection?
        if let path {
            do {
                for _ in 0..<readerCount {
                    let reader = try DirectSQLiteConnection.open(path: path, logger: logger)
                    try await reader.sql().raw("PRAGMA busy_timeout=5000").run()
                    try await reader.sql().raw("PRAGMA query_only=ON").run()
                    try await tune(reader.sql(), cacheMebibytes: readerCacheMebibytes, temporaryInMemory: true)
                    readers.append(Reader(connection: reader))
                }
                let copier = try DirectSQLiteConnection.open(path: path, logger: logger)
                checkpointer = copier
                try await copier.sql().raw("PRAGMA busy_timeout=5000").run()
                try await copier.sql().raw("PRAGMA synchronous=\(unsafeRaw: durability.rawValue)").run()
            } catch {
                for reader in readers { reader.connection.close() }
                checkpointer?.close()
                connection.close()
                throw StoreError(code: .unavailable, message: "cannot open the SQLite database for reading: \(error)")
            }
        }
        return SQLiteBackend(
            connection: connection, readers: readers, checkpointer: checkpointer, writes: WriteHealth(logger: logger), durability: durability)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await read(offloaded: false, body)
    }

    func scan<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await read(offloaded: true, body)
    }

    private func read<T: Sendable>(offloaded: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard !readers.isEmpty else {
            let db = connection.sql(offloaded: offloaded)
            return try await lock.withLock { try await body(db) }
        }
        let reader = readers[turns.next.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
        let db = reader.connection.sql(offloaded: offloaded)
        return try await reader.lock.withLock { try await body(db) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let db = connection.sql()
        defer { commitsSinceCheckpoint.value.add(1, ordering: .relaxed) }
        return try await writes.watch {
            try await writer.run {
                try await lock.withLock {
                    try await renewWriterIfDue()
                    return try await body(db)
                }
            }
        }
    }

    /// After the storage refused a write, the writing connection is opened afresh before a later
    /// write (at most once per ``WriteHealth/renewalInterval`` while refusals go on): whatever a
    /// refused write left in the connection (its pager's state, its page cache, its open files)
    /// cannot outlast the fault, and writes succeed as soon as there is room
    /// again. Until a renewal succeeds, writes are refused rather than run on a connection
    /// without its settings. Called with the writer's lock held.
    private func renewWriterIfDue() async throws {
        guard checkpointer != nil, writes.renewalDue() else { return }
        do {
            try connection.reopen()
            try await Self.configureWriter(connection.sql(), onFile: true, durability: durability)
            writes.renewed(succeeded: true)
        } catch {
            writes.renewed(succeeded: false)
            throw StoreError(code: .unavailable, message: "the SQLite database cannot be written: it cannot be opened afresh (\(error))")
        }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(flushed: true, body)
    }

    func unflushedTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(flushed: false, body)
    }

    /// Unflushed, the commit runs at `synchronous=NORMAL`: in WAL mode it is written to the log
    /// but not flushed; the next flushed commit's flush covers it (the log is written in order).
    /// `synchronous` cannot change inside a transaction, so it is set around it.
    private func transaction<T: Sendable>(flushed: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let db = connection.sql()
        let relaxes = !flushed && durability == .full
        defer { commitsSinceCheckpoint.value.add(1, ordering: .relaxed) }
        return try await writes.watch {
            try await writer.run {
                try await lock.withLock {
                    try await renewWriterIfDue()
                    if relaxes { try await db.raw("PRAGMA synchronous=\(unsafeRaw: SQLiteDurability.throwaway.rawValue)").run() }
                    defer {
                        // The flushing setting is back before the writer is let go; a failure
                        // to set it leaves the connection unusable rather than silently lax.
                        if relaxes, (try? connection.execute("PRAGMA synchronous=\(durability.rawValue)", [], { _ in })) == nil {
                            connection.close()
                        }
                    }
                    try await db.raw("BEGIN IMMEDIATE").run()
                    do {
                        let result = try await body(db)
                        try await db.raw("COMMIT").run()
                        if relaxes { unflushedCommits.value.add(1, ordering: .relaxed) }
                        return result
                    } catch {
                        try? await db.raw("ROLLBACK").run()
                        throw error
                    }
                }
            }
        }
    }

    var writeFailure: String? { writes.recentFailure }

    /// `PRAGMA data_version` of the writing connection, which changes only when another
    /// connection commits: the readers never do, so only another process.
    func externalWriteMark() async throws -> Int? {
        let db = connection.sql()
        return try await lock.withLock {
            try await db.raw("PRAGMA data_version").first().map { try $0.decode(column: "data_version", as: Int.self) }
        }
    }

    /// Copies the log into the database file in the background (``checkpoints(every:)``) until
    /// cancelled; an in-memory database has nothing to copy.
    func run() async throws {
        guard checkpointer != nil else {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            return
        }
        await checkpoints(every: Self.checkpointInterval)
    }

    /// Copies the log into the database file every `interval` in which something was
    /// committed, on the checkpointing connection and a thread of NIO's pool, until the task is
    /// cancelled: a passive checkpoint, which never waits for the writer nor holds it up, and
    /// lets the writer start the log afresh once all of it is copied.
    func checkpoints(every interval: Duration) async {
        guard let checkpointer else { return }
        let db = checkpointer.sql(offloaded: true)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard commitsSinceCheckpoint.value.exchange(0, ordering: .relaxed) > 0 else { continue }
            _ = try? await db.raw("PRAGMA wal_checkpoint(PASSIVE)").all()
        }
    }

    func close() async throws {
        for reader in readers { reader.connection.close() }
        checkpointer?.close()
        connection.close()
        writer.stop()
    }
}

/// Whether the database file can take writes: a write refused by the storage (the disk full,
/// an I/O error) becomes ``StoreError/Code/unavailable`` (a 503 the client retries, never a
/// 500), and is remembered for ``memory`` after the last refusal, so that `/health` can say why.
/// A success does not clear it: on a full disk small writes still fit in pages the database
/// already has while the others fail, and `/health` must not flicker between the two. Refusals
/// are logged with SQLite's own error (its extended code), at most every ``logInterval`` for one
/// reason.
final class WriteHealth: Sendable {
    private struct Failure {
        var reason: String
        var at: ContinuousClock.Instant
        var logged: ContinuousClock.Instant
    }
    private let failure = Mutex<Failure?>(nil)
    private let logger: Logger

    /// Whether the writing connection is to be opened afresh (see
    /// `SQLiteBackend.renewWriterIfDue()`): due after a refusal, at most once per
    /// ``renewalInterval``, and at every write after a renewal failed.
    private struct Renewal {
        var due = false
        var failed = false
        var last: ContinuousClock.Instant?
        var count = 0
    }
    private let renewal = Mutex(Renewal())

    /// The least time between two renewals while refusals go on.
    let renewalInterval: Duration

    /// How often a refusal for the same reason is logged while refusals go on.
    static let logInterval: Duration = .seconds(5)

    init(logger: Logger, renewalInterval: Duration = .seconds(1)) {
        self.logger = logger
        self.renewalInterval = renewalInterval
    }

    /// How long a refusal is reported after it happened.
    static let memory: Duration = .seconds(10)

    func watch<T: Sendable>(_ write: () async throws -> T) async throws -> T {
        do {
            return try await write()
        } catch let error as SQLiteError {
            guard let reason = Self.storageFault(error) else { throw error }
            throw refused(reason, error)
        } catch let error as DirectSQLiteError {
            guard let reason = Self.storageFault(error) else { throw error }
            throw refused(reason, error)
        }
    }

    /// Whether the writing connection is to be opened afresh now; if so, it is no longer due.
    func renewalDue() -> Bool {
        let now = ContinuousClock.now
        return renewal.withLock { renewal in
            guard renewal.failed || (renewal.due && renewal.last.map { now - $0 >= renewalInterval } ?? true) else { return false }
            renewal.due = false
            renewal.last = now
            return true
        }
    }

    /// A renewal ran: until one succeeds, every write tries again.
    func renewed(succeeded: Bool) {
        renewal.withLock { renewal in
            renewal.failed = !succeeded
            if succeeded { renewal.count += 1 }
        }
        if !succeeded { logger.warning("the writing connection could not be opened afresh after the storage refused a write") }
    }

    /// How many times the writing connection was opened afresh (for tests).
    var renewals: Int { renewal.withLock { $0.count } }

    private func refused(_ reason: String, _ error: any Error) -> StoreError {
        let now = ContinuousClock.now
        renewal.withLock { $0.due = true }
        let logs = failure.withLock { failure in
            let logs = failure.map { $0.reason != reason || now - $0.logged >= Self.logInterval } ?? true
            failure = Failure(reason: reason, at: now, logged: logs ? now : failure?.logged ?? now)
            return logs
        }
        if logs { logger.warning("the storage refused a write: \(reason) (\(String(describing: error)))") }
        return StoreError(code: .unavailable, message: "the SQLite database cannot be written: \(reason)")
    }

    /// The storage fault of the last refused write, unless it is older than ``memory``.
    var recentFailure: String? {
        failure.withLock { failure in
            guard let current = failure, ContinuousClock.now - current.at < Self.memory else { return nil }
            return current.reason
        }
    }

    /// What the storage refused, for the errors that mean the file system and not the query.
    static func storageFault(_ error: SQLiteError) -> String? {
        switch error.reason {
        case .full: "the disk is full"
        case .ioError, .ioErrorFailedWrite, .ioErrorFailedSync, .ioErrorFailedDirSync, .ioErrorFailedTruncate,
            .ioErrorFailedSharedMemSize, .ioErrorFailedSharedMemMap, .ioErrorFailedMemoryMap, .ioErrorFailedRead,
            .ioErrorIncompleteRead, .ioErrorFailedStat, .ioErrorFailedAccess:
            "the file system refused a write (I/O error)"
        case .readOnly, .readonlyCantLock, .readonlyDirectory, .readonlyBackingMoved, .cantOpen, .permission:
            "the database file cannot be written (read-only or not permitted)"
        default: nil
        }
    }

    /// `SQLITE_IOERR_NOMEM`, a macro Swift does not import.
    private static let ioErrorNoMemory = SQLITE_IOERR | (12 << 8)

    /// The same for the writing connection's errors (SQLite's result codes).
    static func storageFault(_ error: DirectSQLiteError) -> String? {
        switch error.primary {
        case SQLITE_FULL: "the disk is full"
        case SQLITE_IOERR where error.code != ioErrorNoMemory: "the file system refused a write (I/O error)"
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM: "the database file cannot be written (read-only or not permitted)"
        default: nil
        }
    }
}

/// When a SQLite commit is on the disk (`PRAGMA synchronous`).
public enum SQLiteDurability: String, Sendable {
    /// Every commit is flushed to the disk before it returns (`FULL`): what is acknowledged
    /// survives a crash of the process, of the operating system or a power cut. A server keeps
    /// this: a notification is stored before it is acknowledged.
    case full = "FULL"
    /// Commits reach the disk at each checkpoint of the write-ahead log (`NORMAL`): they survive
    /// a crash of the process, and a power cut may lose the last ones. For a database that is
    /// thrown away (the demo's simulated year), where a flush per commit would be most of the
    /// time.
    case throwaway = "NORMAL"
}
