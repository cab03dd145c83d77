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
/// On SQLite's own writing connection the values are bound straight to a kept statement; the
/// SQLKit path (PostgreSQL, or SQLite offloaded) builds the same statement with its binds.
/// Profiled on a seed, encoding each value through SQLKit's encoder and serializing the
/// statement took more of the writer's time than SQLite did.
struct BulkInsert: Sendable {
    let table: String
    let columns: [String]
    /// What follows the rows of each statement (an `ON CONFLICT` clause), if anything.
    var conflict: String?
    var rowsPerStatement = 200

    /// Writes `values`, the rows one after another (`columns.count` values a row).
    func run(_ values: [BulkValue], _ db: any SQLDatabase) async throws {
        precondition(values.count % columns.count == 0, "a row of \(table) has \(columns.count) values")
        let width = columns.count
        let rows = values.count / width
        var first = 0
        while first < rows {
            let count = min(rowsPerStatement, rows - first)
            let part = values[(first * width)..<((first + count) * width)]
            if let direct = db as? DirectSQLiteDatabase, !direct.offloaded {
                try direct.connection.execute(statement(rows: count), part.map(Self.sqlite)) { _ in }
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
