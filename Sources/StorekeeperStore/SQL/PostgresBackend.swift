import Foundation
import Logging
import PostgresKit
import PostgresNIO
import SQLKit

/// PostgreSQL through PostgresNIO's connection pool; transactions are real server
/// transactions, and job leases use `FOR UPDATE SKIP LOCKED`.
struct PostgresBackend: SQLBackend {
    let client: PostgresClient
    let logger: Logger
    var dialect: SQLStoreDialect { .postgresql }

    init(url: String, logger: Logger) throws {
        client = PostgresClient(configuration: try Self.configuration(url: url), backgroundLogger: logger)
        self.logger = logger
    }

    /// Reads `postgres://user:password@host:port/database?sslmode=disable|prefer|require`.
    static func configuration(url text: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql",
            let host = components.host, !host.isEmpty
        else {
            throw StoreError(code: .invalidLocation, message: "not a postgres:// URL")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let sslmode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch sslmode {
        case "disable": tls = .disable
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user?.removingPercentEncoding ?? "postgres",
            password: components.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: tls
        )
        configuration.options.maximumConnections = 16
        return configuration
    }

    func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await body(connection.sql(queryLogLevel: nil))
        }
    }

    func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await body(connection.sql(queryLogLevel: nil))
            }
        } catch let error as PostgresTransactionError {
            // The caller's own error (an alias conflict) is what matters, not the wrapper.
            if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
            throw error
        }
    }

    func run() async throws {
        await client.run()
    }

    func close() async throws {}
}
