import Foundation
import Logging
import SQLKit

extension SQLStore {
    /// Creates an empty PostgreSQL database beside the one `baseURL` names and returns its URL,
    /// so test suites sharing one server never see each other's rows. `name` must be lower-case
    /// letters, digits and `_`. Never used by the server or the command line.
    public static func createPostgresDatabaseForTests(baseURL: String, name: String, logger: Logger) async throws -> String {
        try await administer(baseURL: baseURL, name: name, logger: logger, statement: "CREATE DATABASE", suffix: "")
        guard var components = URLComponents(string: baseURL) else {
            throw StoreError(code: .invalidLocation, message: "not a postgres:// URL")
        }
        components.path = "/" + name
        return components.string ?? baseURL
    }

    /// Drops a database made by ``createPostgresDatabaseForTests(baseURL:name:logger:)``.
    public static func dropPostgresDatabaseForTests(baseURL: String, name: String, logger: Logger) async throws {
        try await administer(baseURL: baseURL, name: name, logger: logger, statement: "DROP DATABASE IF EXISTS", suffix: " WITH (FORCE)")
    }

    private static func administer(baseURL: String, name: String, logger: Logger, statement: String, suffix: String) async throws {
        guard !name.isEmpty, name.utf8.count < 60, name.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }) else {
            throw StoreError(code: .invalidLocation, message: "test database names are lower-case letters, digits and _")
        }
        let backend = try PostgresBackend(url: baseURL, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await backend.run() }
            defer { group.cancelAll() }
            try await backend.read { db in
                // DDL cannot take bound parameters; the name was checked above to be a plain identifier.
                try await db.raw("\(unsafeRaw: statement) \(ident: name)\(unsafeRaw: suffix)").run()
            }
        }
    }
}
