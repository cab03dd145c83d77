import Foundation
import VaporCSQLite

/// A copy of an SQLite database taken while a server writes to it, and the check of such a
/// copy before anyone trusts it (`storekeeper backup` and `storekeeper restore`).
///
/// The copy is SQLite's own `VACUUM INTO` on a connection of its own: one read transaction, so
/// it holds exactly what was committed when it began (the write-ahead log included) and the
/// server's writer goes on meanwhile (WAL lets a reader and the writer run together). The file
/// it writes is a complete database in rollback-journal mode, with no `-wal` beside it.
public enum SQLiteFileCopy {
    /// The first 16 bytes of every SQLite database file.
    static let header = Data("SQLite format 3\u{0}".utf8)

    /// The tables whose row counts describe a copy: the inbox, the ledger, the events, the
    /// outbox, the jobs, the customers.
    public static let keyTables = ["notification_inbox", "ledger", "events", "event_deliveries", "jobs", "customers"]

    /// Writes a consistent copy of the database at `database` to `destination`, which must not
    /// exist. Waits for a moment the writer lets go of the database (SQLite's busy timeout) at
    /// most `busyTimeoutMilliseconds`.
    public static func copy(database: String, to destination: String, busyTimeoutMilliseconds: Int32 = 30_000) throws {
        let connection = try Handle(path: database, readOnly: false)
        defer { connection.close() }
        sqlite_nio_sqlite3_busy_timeout(connection.pointer, busyTimeoutMilliseconds)
        // The destination is a bound value: `VACUUM INTO` takes any expression.
        try connection.rows("VACUUM INTO ?1", binding: destination) { _ in }
    }

    /// What ``check(_:)`` found wrong with a file.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var code: Code
        /// A human reason (SQLite's own words where it gave some).
        public var reason: String

        public enum Code: String, Sendable {
            /// The file does not start with SQLite's header (or is shorter than it).
            case notSQLite = "not_sqlite"
            /// SQLite cannot read it, or `PRAGMA integrity_check` reports damage.
            case corrupt
            /// A sound SQLite database without Storekeeper's `schema_migrations`.
            case notStorekeeper = "not_storekeeper"
        }

        public var description: String { "\(code.rawValue): \(reason)" }
    }

    /// A sound copy: its schema version and the row counts of ``keyTables`` it has.
    public struct Contents: Hashable, Sendable {
        public var schemaVersion: Int
        public var tableCounts: [String: Int]
    }

    /// Checks the database file at `path` without changing it: SQLite's header, `PRAGMA
    /// integrity_check`, the schema version, the key tables' counts. Damage is a value
    /// (``Problem``); only a file that cannot be read at all throws.
    public static func check(_ path: String) throws -> Result<Contents, Problem> {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw StoreError(code: .unavailable, message: "cannot read \(path): \(error.localizedDescription)")
        }
        let start = (try? handle.read(upToCount: header.count)) ?? Data()
        try? handle.close()
        guard start == header else {
            return .failure(Problem(code: .notSQLite, reason: "\(path) is not an SQLite database (its first bytes are not SQLite's header)"))
        }
        let connection: Handle
        do {
            connection = try Handle(path: path, readOnly: true)
        } catch {
            return .failure(Problem(code: .corrupt, reason: "SQLite cannot open \(path): \(error)"))
        }
        defer { connection.close() }
        do {
            var findings: [String] = []
            try connection.rows("PRAGMA integrity_check(20)") { findings.append($0.first ?? "") }
            guard findings == ["ok"] else {
                return .failure(Problem(code: .corrupt, reason: "integrity check: " + findings.prefix(5).joined(separator: "; ")))
            }
            var tables: Set<String> = []
            try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'") { row in row.first.map { _ = tables.insert($0) } }
            guard tables.contains("schema_migrations") else {
                return .failure(Problem(code: .notStorekeeper, reason: "\(path) has no schema_migrations table: not a Storekeeper database"))
            }
            var version = 0
            try connection.rows("SELECT MAX(version) FROM schema_migrations") { version = $0.first.flatMap { Int($0) } ?? 0 }
            var counts: [String: Int] = [:]
            for table in keyTables where tables.contains(table) {
                // A table name from the fixed list above, never from input.
                try connection.rows("SELECT COUNT(*) FROM \(table)") { counts[table] = $0.first.flatMap { Int($0) } ?? 0 }
            }
            return .success(Contents(schemaVersion: version, tableCounts: counts))
        } catch {
            return .failure(Problem(code: .corrupt, reason: "SQLite cannot read \(path): \(error)"))
        }
    }

    /// One connection of SQLite's C interface, for the few statements above. Used by one
    /// thread at a time, from its opening to its closing.
    final class Handle {
        let pointer: OpaquePointer

        init(path: String, readOnly: Bool) throws {
            var handle: OpaquePointer?
            // Never SQLITE_OPEN_CREATE: a missing file is an error, not a new empty database.
            let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_EXRESCODE
            let status = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
            guard status == SQLITE_OK, let handle else {
                let message = handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open"
                if let handle { sqlite_nio_sqlite3_close_v2(handle) }
                throw DirectSQLiteError(code: status, message: message)
            }
            pointer = handle
        }

        /// Runs `sql` (one statement, at most one text parameter), handing each row's columns
        /// as text to `onRow`.
        func rows(_ sql: String, binding text: String? = nil, _ onRow: ([String]) -> Void) throws {
            var statement: OpaquePointer?
            let prepared = sqlite_nio_sqlite3_prepare_v2(pointer, sql, -1, &statement, nil)
            guard prepared == SQLITE_OK, let statement else { throw error(prepared) }
            defer { sqlite_nio_sqlite3_finalize(statement) }
            if let text {
                let bound = sqlite_nio_sqlite3_bind_text(statement, 1, text, -1, Self.transient)
                guard bound == SQLITE_OK else { throw error(bound) }
            }
            while true {
                let status = sqlite_nio_sqlite3_step(statement)
                if status == SQLITE_DONE { return }
                guard status == SQLITE_ROW else { throw error(status) }
                let count = sqlite_nio_sqlite3_column_count(statement)
                onRow((0..<count).map { sqlite_nio_sqlite3_column_text(statement, $0).map { String(cString: $0) } ?? "" })
            }
        }

        func close() { sqlite_nio_sqlite3_close_v2(pointer) }

        private func error(_ status: Int32) -> DirectSQLiteError {
            DirectSQLiteError(code: status, message: sqlite_nio_sqlite3_errmsg(pointer).map { String(cString: $0) } ?? "unknown error")
        }

        /// SQLite copies a bound value before the call returns.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }
}
