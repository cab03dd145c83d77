import PostgresKit
import PostgresNIO
import SQLKit

/// A PostgreSQL row as the store reads it (``LeasedPostgresDatabase``): the texts, integers,
/// reals and booleans the store reads, and their optionals, decode straight from their cells,
/// as PostgresKit's translation decodes them too but without the coding path, casts and
/// lookups it makes for every cell; any other type, and the cells its translation treats
/// apart (user-defined types read as text, numerics read as reals), go through PostgresKit's
/// own row, so every value decodes as it did.
///
/// A column is found by comparing names, the last of a name as PostgresNIO's lookup finds it:
/// a statement's few short names compare faster than they hash.
struct StorePostgresRow: SQLRow {
    private let row: PostgresRow
    private let cells: [PostgresCell]

    init(_ row: PostgresRow) {
        self.row = row
        cells = Array(row)
    }

    private func cell(_ column: String) -> PostgresCell? { cells.last { $0.columnName == column } }

    var allColumns: [String] { cells.map(\.columnName) }

    func contains(column: String) -> Bool { cell(column) != nil }

    func decodeNil(column: String) throws -> Bool { cell(column)?.bytes == nil }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let cell = cell(column), !cell.dataType.isUserDefined else { return try row.sql().decode(column: column, as: type) }
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self): return try cell.decode(String.self) as! D
        case ObjectIdentifier(String?.self): return try cell.decode(String?.self) as! D
        case ObjectIdentifier(Int64.self): return try cell.decode(Int64.self) as! D
        case ObjectIdentifier(Int64?.self): return try cell.decode(Int64?.self) as! D
        case ObjectIdentifier(Int.self): return try cell.decode(Int.self) as! D
        case ObjectIdentifier(Int?.self): return try cell.decode(Int?.self) as! D
        case ObjectIdentifier(Bool.self): return try cell.decode(Bool.self) as! D
        case ObjectIdentifier(Bool?.self): return try cell.decode(Bool?.self) as! D
        case ObjectIdentifier(Double.self) where cell.dataType != .numeric: return try cell.decode(Double.self) as! D
        default: return try row.sql().decode(column: column, as: type)
        }
    }

    /// A statement's values bound as PostgresKit binds them (nothing for a nil, each
    /// PostgreSQL-encodable value by its own encoding), or nil when one of them is neither: the
    /// statement then goes through PostgresKit.
    static func bindings(_ binds: [any Encodable & Sendable]) throws -> PostgresBindings? {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            guard try append(bind, to: &bindings) else { return nil }
        }
        return bindings
    }

    private static func append<Value: Encodable>(_ value: Value, to bindings: inout PostgresBindings) throws -> Bool {
        if (value as Any?) == nil {
            bindings.appendNull()
        } else if let value = value as? any PostgresThrowingDynamicTypeEncodable {
            try bindings.append(value, context: .default)
        } else {
            return false
        }
        return true
    }
}
