import CSQLiteConfig
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import SQLiteNIO
import Synchronization
import VaporCSQLite

/// A SQLite connection driven through SQLite's C interface on the calling thread, keeping its
/// prepared statements.
///
/// SQLiteNIO runs each statement on its thread pool and prepares it afresh: two hand-offs
/// between threads and a compilation per statement. For the writing connection, which every
/// commit waits for, that was most of the time the write lock was held (a group of three
/// notifications took 1.25 ms to insert and commit through it, 0.44 ms through Python's
/// `sqlite3`). Here a statement runs where it is called, so the caller's thread waits for the
/// disk during a commit's flush; statements are kept by their text (at most
/// ``statementCapacity``) and reset after each use.
///
/// It is the same SQLite library as SQLiteNIO's (its vendored copy), so the two kinds of
/// connection see each other's locks on the same file. Calls are serialized by a mutex; the
/// store gives the writing connection one unit of work at a time besides.
final class DirectSQLiteConnection: Sendable {
    private let state: Mutex<State>
    let logger: Logger
    let eventLoop: any EventLoop

    /// How many prepared statements are kept.
    static let statementCapacity = 256

    private struct State: ~Copyable {
        var handle: OpaquePointer?
        var statements: [String: OpaquePointer] = [:]

        deinit {
            for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
            if let handle { sqlite_nio_sqlite3_close_v2(handle) }
        }
    }

    /// The file (nil: a private in-memory database): what ``reopen()`` opens again.
    private let path: String?

    private init(handle: sending OpaquePointer, path: String?, logger: Logger, eventLoop: any EventLoop) {
        self.state = Mutex(State(handle: handle))
        self.path = path
        self.logger = logger
        self.eventLoop = eventLoop
    }

    /// Opens the file at `path`, or a private in-memory database for nil, with SQLite's own VFS.
    static func open(path: String?, logger: Logger) throws -> DirectSQLiteConnection {
        let handle = try openHandle(path: path)
        return DirectSQLiteConnection(handle: handle, path: path, logger: logger, eventLoop: MultiThreadedEventLoopGroup.singleton.any())
    }

    /// Closes the connection's handle and opens the same file afresh: its
    /// page cache, its pager's state and its open files start over. The connection's settings
    /// (`PRAGMA`s) are SQLite's defaults again, so the caller sets them once more. When the
    /// file cannot be opened, the old handle stays; a closed connection stays closed.
    func reopen() throws {
        guard path != nil else { return }
        let fresh = FreshHandle(pointer: try Self.openHandle(path: path))
        state.withLock { state in
            // A connection closed on purpose stays closed.
            guard let handle = state.handle else {
                sqlite_nio_sqlite3_close_v2(fresh.pointer)
                return
            }
            for statement in state.statements.values { sqlite_nio_sqlite3_finalize(statement) }
            state.statements = [:]
            sqlite_nio_sqlite3_close_v2(handle)
            state.handle = fresh.pointer
        }
    }

    /// A handle just opened, which no other code has seen, on its way into the state (as `open`
    /// hands one to `init`).
    private struct FreshHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private static func openHandle(path: String?) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite_nio_sqlite3_open_v2(path ?? ":memory:", &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open"
            if let handle { sqlite_nio_sqlite3_close_v2(handle) }
            throw DirectSQLiteError(code: status, message: message)
        }
        // Plans that do not depend on bound values: otherwise SQLite marks a kept statement
        // expired whenever a `LIMIT ?` or a value its planner looked at is bound again, and
        // compiles it afresh (seen on most reads: a demo year spent 9 % of its CPU there).
        let planning = storekeeper_sqlite_enable_qpsg(UnsafeMutableRawPointer(handle))
        guard planning == SQLITE_OK else {
            sqlite_nio_sqlite3_close_v2(handle)
            throw DirectSQLiteError(code: planning, message: "cannot enable the query planner stability guarantee")
        }
        return handle
    }

    /// Runs one statement (the first of `sql`) with `binds`, handing each row to `onRow`.
    func execute(_ sql: String, _ binds: [SQLiteData], _ onRow: (DirectSQLiteRow) -> Void) throws {
        try state.withLock { state in
            guard let handle = state.handle else { throw DirectSQLiteError(code: SQLITE_MISUSE, message: "the connection is closed") }
            let statement = try Self.statement(sql, state: &state, handle: handle)
            defer {
                sqlite_nio_sqlite3_reset(statement)
                sqlite_nio_sqlite3_clear_bindings(statement)
            }
            for (offset, bind) in binds.enumerated() {
                try Self.check(Self.bind(bind, at: Int32(offset + 1), to: statement), handle)
            }
            var columns: DirectSQLiteRow.Columns?
            while true {
                let status = sqlite_nio_sqlite3_step(statement)
                guard status == SQLITE_ROW else {
                    if status == SQLITE_DONE { return }
                    throw DirectSQLiteError(code: status, message: Self.message(handle))
                }
                let names = columns ?? DirectSQLiteRow.Columns(statement)
                columns = names
                onRow(DirectSQLiteRow(columns: names, values: try names.values(statement)))
            }
        }
    }

    /// How many times the kept statement for `sql` was compiled again since it was prepared
    /// (`nil` when none is kept).
    func recompilations(of sql: String) -> Int? {
        state.withLock { state in
            state.statements[sql].map { Int(sqlite_nio_sqlite3_stmt_status($0, Int32(SQLITE_STMTSTATUS_REPREPARE), 0)) }
        }
    }

    /// Closes the connection; later calls fail.
    func close() {
        state.withLock { state in
            for statement in state.statements.values { sqlite_nio_sqlite3_finalize(statement) }
            state.statements = [:]
            if let handle = state.handle { sqlite_nio_sqlite3_close_v2(handle) }
            state.handle = nil
        }
    }

    /// An SQLKit database over this connection; `offloaded`, its statements run on NIO's
    /// thread pool instead of the calling thread.
    func sql(offloaded: Bool = false) -> any SQLDatabase { DirectSQLiteDatabase(connection: self, offloaded: offloaded) }

    private static func statement(_ sql: String, state: inout State, handle: OpaquePointer) throws -> OpaquePointer {
        if let kept = state.statements[sql] { return kept }
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw DirectSQLiteError(code: status == SQLITE_OK ? SQLITE_MISUSE : status, message: message(handle))
        }
        if state.statements.count >= statementCapacity, let (oldest, evicted) = state.statements.first {
            state.statements[oldest] = nil
            sqlite_nio_sqlite3_finalize(evicted)
        }
        state.statements[sql] = statement
        return statement
    }

    private static func bind(_ value: SQLiteData, at index: Int32, to statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let value): sqlite_nio_sqlite3_bind_int64(statement, index, Int64(value))
        case .float(let value): sqlite_nio_sqlite3_bind_double(statement, index, value)
        case .text(let value):
            sqlite_nio_sqlite3_bind_text64(statement, index, value, UInt64(value.utf8.count), transient, UInt8(SQLITE_UTF8))
        case .blob(let value):
            value.withUnsafeReadableBytes { sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), transient) }
        case .null: sqlite_nio_sqlite3_bind_null(statement, index)
        }
    }

    private static func check(_ status: Int32, _ handle: OpaquePointer) throws {
        guard status == SQLITE_OK else { throw DirectSQLiteError(code: status, message: message(handle)) }
    }

    private static func message(_ handle: OpaquePointer) -> String {
        sqlite_nio_sqlite3_errmsg(handle).map { String(cString: $0) } ?? "unknown error"
    }

    /// SQLite copies a bound value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// An error SQLite returned, with its extended result code.
struct DirectSQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    var description: String { "SQLite error \(code): \(message)" }

    /// The primary result code (`SQLITE_FULL`, `SQLITE_IOERR`…) of an extended one.
    var primary: Int32 { code & 0xff }
}

/// One result row of a ``DirectSQLiteConnection``.
struct DirectSQLiteRow: SQLRow {
    /// A statement's column names, read once per execution.
    final class Columns: Sendable {
        let names: [String]
        let offsets: [String: Int]

        init(_ statement: OpaquePointer) {
            let count = Int(sqlite_nio_sqlite3_column_count(statement))
            names = (0..<count).map { sqlite_nio_sqlite3_column_name(statement, Int32($0)).map { String(cString: $0) } ?? "" }
            // The first of two columns with one name wins, as in SQLiteNIO.
            offsets = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }

        func values(_ statement: OpaquePointer) throws -> [SQLiteData] {
            try (0..<Int32(names.count)).map { column in
                switch sqlite_nio_sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: .float(sqlite_nio_sqlite3_column_double(statement, column))
                case SQLITE_TEXT:
                    .text(
                        String(
                            decoding: UnsafeRawBufferPointer(
                                start: sqlite_nio_sqlite3_column_text(statement, column),
                                count: Int(sqlite_nio_sqlite3_column_bytes(statement, column))),
                            as: UTF8.self))
                case SQLITE_BLOB:
                    .blob(
                        ByteBuffer(
                            bytes: UnsafeRawBufferPointer(
                                start: sqlite_nio_sqlite3_column_blob(statement, column),
                                count: Int(sqlite_nio_sqlite3_column_bytes(statement, column)))))
                case SQLITE_NULL: .null
                default: throw DirectSQLiteError(code: SQLITE_MISMATCH, message: "an unknown column type")
                }
            }
        }
    }

    let columns: Columns
    let values: [SQLiteData]

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { columns.offsets[column] != nil }

    func decodeNil(column: String) throws -> Bool {
        guard let offset = columns.offsets[column] else { return true }
        return values[offset] == .null
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let offset = columns.offsets[column] else {
            throw DirectSQLiteError(code: SQLITE_RANGE, message: "no column named \(column)")
        }
        let value = values[offset]
        // The common cases straight from the stored value (a figure read decodes tens of
        // thousands of cells, and the decoder's generic path was a fifth of its time); any other
        // pairing of type and value takes the decoder, which answers these the same way. (The casts
        // are between a type and itself, checked just before.)
        switch value {
        case .integer(let integer):
            if D.self == Int64.self { return unsafeBitCast(Int64(integer), to: D.self) }
            if D.self == Int.self { return unsafeBitCast(integer, to: D.self) }
            if D.self == Int64?.self { return unsafeBitCast(Int64?.some(Int64(integer)), to: D.self) }
        case .text(let text):
            if D.self == String.self { return unsafeBitCast(text, to: D.self) }
            if D.self == String?.self { return unsafeBitCast(String?.some(text), to: D.self) }
        case .null:
            if D.self == String?.self { return unsafeBitCast(String?.none, to: D.self) }
            if D.self == Int64?.self { return unsafeBitCast(Int64?.none, to: D.self) }
        default:
            break
        }
        return try SQLiteDataDecoder().decode(D.self, from: value)
    }
}

/// SQLKit over a ``DirectSQLiteConnection``: statements serialized in SQLite's dialect, values
/// encoded and decoded as SQLiteKit does.
struct DirectSQLiteDatabase: SQLDatabase {
    let connection: DirectSQLiteConnection
    /// Whether statements run on NIO's thread pool rather than the calling thread.
    var offloaded = false

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        guard offloaded else {
            do {
                try run(query, onRow)
                return eventLoop.makeSucceededVoidFuture()
            } catch {
                return eventLoop.makeFailedFuture(error)
            }
        }
        let (sql, binds) = serialize(query)
        do {
            let encoded = try binds.map { try SQLiteDataEncoder().encode($0) }
            return NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) { [connection] in
                try connection.execute(sql, encoded) { onRow($0) }
            }
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        guard offloaded else { return try run(query, onRow) }
        let (sql, binds) = serialize(query)
        let encoded = try binds.map { try SQLiteDataEncoder().encode($0) }
        try await NIOThreadPool.singleton.runIfActive { [connection] in try connection.execute(sql, encoded) { onRow($0) } }
    }

    private func run(_ query: any SQLExpression, _ onRow: @Sendable (any SQLRow) -> Void) throws {
        let (sql, binds) = serialize(query)
        let encoder = SQLiteDataEncoder()
        try connection.execute(sql, try binds.map { try encoder.encode($0) }) { onRow($0) }
    }
}
