import Foundation

/// Where the store keeps its data: an SQLite file (the default), memory, or a PostgreSQL server.
public enum DatabaseLocation: Sendable, Hashable {
    /// An SQLite database file, opened in WAL mode.
    case sqlite(path: String)
    /// An SQLite database in memory (tests).
    case sqliteInMemory
    /// A PostgreSQL server, `postgres://user:password@host:port/database?sslmode=disable`.
    case postgres(url: String)

    /// The file name of the SQLite database inside a data directory.
    public static let sqliteFileName = "storekeeper.sqlite"

    /// PostgreSQL for a `postgres://` or `postgresql://` URL, `sqlite://PATH` or a plain path
    /// for SQLite, and otherwise SQLite in `dataDirectory`.
    public static func resolve(databaseURL: String?, dataDirectory: String) throws -> DatabaseLocation {
        guard let url = databaseURL?.trimmingCharacters(in: .whitespaces), !url.isEmpty else {
            return .sqlite(path: URL(fileURLWithPath: dataDirectory).appendingPathComponent(sqliteFileName).path)
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            _ = try PostgresSettings(url: url)
            return .postgres(url: url)
        }
        if url.hasPrefix("sqlite://") { return .sqlite(path: String(url.dropFirst("sqlite://".count))) }
        if url == ":memory:" { return .sqliteInMemory }
        if url.contains("://") {
            throw StoreError(code: .invalidLocation, message: "database URL must start with postgres:// or sqlite://")
        }
        return .sqlite(path: url)
    }

    /// What deserves a warning at startup about this location (plaintext to another machine).
    public var warnings: [String] {
        guard case .postgres(let url) = self else { return [] }
        return (try? PostgresSettings(url: url))?.warnings ?? []
    }

    /// A description safe for logs: the PostgreSQL password is never shown.
    public var redactedDescription: String {
        switch self {
        case .sqlite(let path): return "sqlite \(path)"
        case .sqliteInMemory: return "sqlite in memory"
        case .postgres(let url):
            guard var components = URLComponents(string: url) else { return "postgresql (unreadable URL)" }
            if components.password != nil { components.password = "***" }
            components.query = nil
            return "postgresql \(components.string ?? "")"
        }
    }
}
