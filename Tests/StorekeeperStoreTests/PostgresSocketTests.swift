import Foundation
import Logging
import Testing

@testable import StorekeeperStore

/// A PostgreSQL on the same machine reached through its Unix socket, as libpq names one: the
/// host is a directory, given as the `host` parameter or percent-encoded as the URL's host.
@Suite("PostgreSQL over a Unix socket")
struct PostgresSocketTests {
    /// The socket directory of the test server (`.ci/run` sets it beside the server's URL).
    static let directory: String? = {
        let value = ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_SOCKET_DIRECTORY"] ?? ""
        return value.isEmpty || TestBackend.postgresURL == nil ? nil : value
    }()

    @Test("a directory as host means its socket .s.PGSQL.<port>, with no TLS and no warning")
    func socketURLs() throws {
        let named = try PostgresSettings(url: "postgres://u:p@/app?host=/run/postgresql")
        #expect(named.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(named.database == "app" && named.username == "u" && named.password == "p")
        #expect(named.sslmode == "prefer" && named.warnings.isEmpty)
        let withPort = try PostgresSettings(url: "postgres://u@/app?host=/tmp/pg/&port=54341&sslmode=disable")
        #expect(withPort.socketPath == "/tmp/pg/.s.PGSQL.54341" && withPort.port == 54341)
        let encoded = try PostgresSettings(url: "postgres://u@%2Fvar%2Frun%2Fpostgresql:5433/app")
        #expect(encoded.socketPath == "/var/run/postgresql/.s.PGSQL.5433")
        for mode in ["require", "verify-ca", "verify-full"] {
            #expect(throws: StoreError.self) { try PostgresSettings(url: "postgres://u@/app?host=/run/postgresql&sslmode=\(mode)") }
        }
    }

    @Test("host and port parameters override the URL's; a bad port or no host is refused")
    func parameters() throws {
        let moved = try PostgresSettings(url: "postgres://u@db.example.com:5432/app?host=db2.example.com&port=6543")
        #expect(moved.host == "db2.example.com" && moved.port == 6543 && moved.socketPath == nil)
        #expect(moved.sslmode == "require")
        for port in ["0", "65536", "x", ""] {
            #expect(throws: StoreError.self) { try PostgresSettings(url: "postgres://u@h/app?port=\(port)") }
        }
        #expect(throws: StoreError.self) { try PostgresSettings(url: "postgres://u@/app") }
        #expect(throws: StoreError.self) { try DatabaseLocation.resolve(databaseURL: "postgres:///app", dataDirectory: "/x") }
        #expect(throws: StoreError.self) { try PostgresSettings(url: "mysql://u@h/app") }
    }

    @Test(
        "a store opened by its socket URL migrates, writes and reads",
        .enabled(if: directory != nil, "needs STOREKEEPER_TEST_POSTGRES_URL and STOREKEEPER_TEST_POSTGRES_SOCKET_DIRECTORY"))
    func connects() async throws {
        let base = try #require(TestBackend.postgresURL)
        let directory = try #require(Self.directory)
        var logger = Logger(label: "test.socket")
        logger.logLevel = .warning
        let name = "sk_socket_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let tcp = try await SQLStore.createPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
        do {
            try await Self.roundTrip(tcp: tcp, directory: directory, logger: logger)
            try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
        } catch {
            try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
            throw error
        }
    }

    /// Opens the database of `tcp` through the socket in `directory`, and stores and reads a row.
    static func roundTrip(tcp: String, directory: String, logger: Logger) async throws {
        var components = try #require(URLComponents(string: tcp))
        components.host = nil
        let port = components.port ?? 5432
        components.port = nil
        // The base URL's own parameters (its connect_timeout) kept, its host moved to the socket.
        components.queryItems =
            (components.queryItems ?? []).filter { !["host", "port"].contains($0.name) } + [
                URLQueryItem(name: "host", value: directory), URLQueryItem(name: "port", value: "\(port)"),
            ]
        let socket = try #require(components.string)
        #expect(try PostgresSettings(url: socket).socketPath == directory + "/.s.PGSQL.\(port)")
        let received = try await SQLStore.withStore(.postgres(url: socket), logger: logger) { store in
            let notification = InboxNotification(
                appId: "app", idempotencyKey: "socket-1", version: .v2, body: "{}", headers: [:], receivedAt: Date(timeIntervalSince1970: 1))
            let insertion = try await store.receive(notification)
            return (insertion, try await store.notification(id: insertion.id)?.idempotencyKey, try await store.pendingCount())
        }
        #expect(received.1 == "socket-1" && received.2 == 1)
    }
}
