import NIOCore
import PostgresNIO
import SQLKit
import SQLiteNIO

/// A value of a row ``BulkInsert`` writes.
enum BulkValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    case null

    init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}

/// Inserts many rows of one table, ``rowsPerStatement`` rows a statement (the figure rows: tens
/// of them per chain, millions in a build or a seed).
///
/// On SQLite's own writing connection the values are bound straight to a kept statement. On a
/// leased PostgreSQL connection the rows are streamed through `COPY … FROM STDIN`, or, with a
/// conflict clause (which COPY has not), appended to PostgresNIO's bindings. The SQLKit path
/// (SQLite offloaded) builds the same statement with its binds. Profiled on seeds, encoding
/// each value through SQLKit's encoder and serializing the statement took more of the writer's
/// time than SQLite did, and about twice PostgreSQL's.
struct BulkInsert: Sendable {
    let table: String
    let columns: [String]
    /// What follows the rows of each statement (an `ON CONFLICT` clause), if anything.
    var conflict: String?
    var rowsPerStatement = 200

    /// Writes `values`, the rows one after another (`columns.count` values a row).
    func run(_ values: [BulkValue], _ db: any SQLDatabase) async throws {
        precondition(values.count % columns.count == 0, "a row of \(table) has \(columns.count) values")
        if conflict == nil, let leased = db as? LeasedPostgresDatabase { return try await copy(values, leased) }
        let width = columns.count
        let rows = values.count / width
        var first = 0
        while first < rows {
            let count = min(rowsPerStatement, rows - first)
            let part = values[(first * width)..<((first + count) * width)]
            if let direct = db as? DirectSQLiteDatabase, !direct.offloaded {
                try direct.connection.execute(statement(rows: count), part.map(Self.sqlite)) { _ in }
            } else if let leased = db as? LeasedPostgresDatabase {
                let rows = try await leased.connection.query(postgres(part), logger: leased.logger)
                for try await _ in rows {}
            } else {
                try await db.raw(query(part)).run()
            }
            first += count
        }
    }

    private var prefix: String { "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES " }

    private var suffix: String { conflict.map { " " + $0 } ?? "" }

    /// The statement for `rows` rows with `?` placeholders (SQLite).
    private func statement(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return prefix + Array(repeating: row, count: rows).joined(separator: ", ") + suffix
    }

    /// Streams the rows to PostgreSQL's `COPY … FROM STDIN` in its text format, a buffer of
    /// about 64 KiB at a time: no statement to parse, no parameter to bind.
    private func copy(_ values: [BulkValue], _ leased: LeasedPostgresDatabase) async throws {
        let width = columns.count
        try await leased.connection.copyFrom(table: table, columns: columns, logger: leased.logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(Self.copyBufferBytes + 4_096)
            for (offset, value) in values.enumerated() {
                if offset % width != 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                switch value {
                case .integer(let value): buffer.writeString(String(value))
                case .text(let value): Self.writeCopyText(value, to: &buffer)
                case .null: buffer.writeStaticString("\\N")
                }
                guard offset % width == width - 1 else { continue }
                buffer.writeInteger(UInt8(ascii: "\n"))
                if buffer.readableBytes >= Self.copyBufferBytes {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }

    private static let copyBufferBytes = 65_536

    /// `value` in COPY's text format: a backslash, tab, line feed or carriage return escaped,
    /// everything else as its UTF-8 bytes.
    static func writeCopyText(_ value: String, to buffer: inout ByteBuffer) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    /// The statement for the rows of `values` with `$n` placeholders and their bindings (PostgreSQL).
    private func postgres(_ values: ArraySlice<BulkValue>) -> PostgresQuery {
        let width = columns.count
        var sql = prefix
        var bindings = PostgresBindings(capacity: values.count)
        for (offset, value) in values.enumerated() {
            let column = offset % width
            sql += column == 0 ? (offset == 0 ? "($" : ", ($") : ", $"
            sql += String(offset + 1)
            switch value {
            case .integer(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .null: bindings.appendNull()
            }
            if column == width - 1 { sql += ")" }
        }
        return PostgresQuery(unsafeSQL: sql + suffix, binds: bindings)
    }

    private static func sqlite(_ value: BulkValue) -> SQLiteData {
        switch value {
        case .integer(let value): .integer(Int(value))
        case .text(let value): .text(value)
        case .null: .null
        }
    }

    /// The statement for the rows of `values` with SQLKit's binds (PostgreSQL).
    private func query(_ values: ArraySlice<BulkValue>) -> SQLQueryString {
        let width = columns.count
        var query: SQLQueryString = "\(unsafeRaw: prefix)"
        for (offset, value) in values.enumerated() {
            let column = offset % width
            if column == 0 { query += offset == 0 ? "(" : ", (" } else { query += ", " }
            switch value {
            case .integer(let value): query += "\(bind: value)"
            case .text(let value): query += "\(bind: value)"
            case .null: query += "\(bind: Int64?.none)"
            }
            if column == width - 1 { query += ")" }
        }
        return query + "\(unsafeRaw: suffix)"
    }
}
