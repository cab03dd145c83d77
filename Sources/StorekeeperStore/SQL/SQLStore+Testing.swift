import Foundation
import Logging
import SQLKit

extension SQLStore {
    /// Runs `body` with the URL of an empty PostgreSQL database made beside the one `baseURL`
    /// names (named `prefix` and a random suffix), and drops it afterwards, so test suites
    /// sharing one server never see each other's rows. At most
    /// ``concurrentPostgresTestDatabases`` run at once in a process: a test run starts hundreds
    /// of tests together on two cores, and with every one of them opening pools at once,
    /// connections were not handed out within their bound. Never used by the server or the
    /// command line.
    public static func withPostgresDatabaseForTests<T: Sendable>(
        baseURL: String, prefix: String, logger: Logger, _ body: @Sendable (String) async throws -> T
    ) async throws -> T {
        try await postgresTestDatabases.withLock {
            let name = prefix + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
            let url = try await createPostgresDatabaseForTests(baseURL: baseURL, name: name, logger: logger)
            let result: Result<T, any Error>
            do {
                result = .success(try await body(url))
            } catch {
                result = .failure(error)
            }
            try? await dropPostgresDatabaseForTests(baseURL: baseURL, name: name, logger: logger)
            return try result.get()
        }
    }

    /// How many databases of ``withPostgresDatabaseForTests(baseURL:prefix:logger:_:)`` are in
    /// use at once.
    static let concurrentPostgresTestDatabases = 6
    private static let postgresTestDatabases = AsyncLock(permits: concurrentPostgresTestDatabases)

    /// Creates an empty PostgreSQL database beside the one `baseURL` names and returns its URL.
    /// `name` must be lower-case letters, digits and `_`. A server that cannot be reached is
    /// asked again, three times, a few seconds apart: a busy machine, not the test, is then
    /// what failed. Never used by the server or the command line.
    public static func createPostgresDatabaseForTests(baseURL: String, name: String, logger: Logger) async throws -> String {
        var attempt = 1
        while true {
            do {
                // An attempt that timed out may have made the database after all.
                if attempt > 1 { try await dropPostgresDatabaseForTests(baseURL: baseURL, name: name, logger: logger) }
                try await administer(baseURL: baseURL, name: name, logger: logger, statement: "CREATE DATABASE", suffix: "")
                break
            } catch let error as StoreError where error.code == .unavailable && attempt < 4 {
                logger.warning("creating the test database \(name) failed (\(error)); trying again")
                try await Task.sleep(for: .seconds(2 * attempt))
                attempt += 1
            }
        }
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
