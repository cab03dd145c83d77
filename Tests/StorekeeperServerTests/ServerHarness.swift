import AppStoreModels
import AppStoreTestSigning
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StorekeeperApps
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Synchronization
import Testing

/// The stores server tests run on: the in-memory store and SQLite always, PostgreSQL when
/// `STOREKEEPER_TEST_POSTGRES_URL` is set (each test in a database of its own), and PostgreSQL
/// with a read database (`--read-database-url`) on its streaming standby when
/// `STOREKEEPER_TEST_POSTGRES_STANDBY_URL` is set too: the server's lists and figures then read
/// there, following the test's own writes, and no read may fail on the standby.
enum ServerBackend: String, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case postgresql
    case standby

    static let standbyURL: String? = {
        let value = ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_STANDBY_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    static let postgresURL: String? = {
        let value = ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    static var available: [ServerBackend] {
        [.memory] + databases + (postgresURL != nil && standbyURL != nil ? [.standby] : [])
    }

    /// The SQL databases only, for tests of what only a database does (files, migrations,
    /// connections).
    static var databases: [ServerBackend] {
        if postgresURL == nil {
            FileHandle.standardError.write(
                Data(
                    "StorekeeperServerTests: PostgreSQL tests SKIPPED (STOREKEEPER_TEST_POSTGRES_URL is not set)\n".utf8))
            return [.sqlite]
        }
        return [.sqlite, .postgresql]
    }

    var testDescription: String { rawValue }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    var now: Date { instant.withLock { $0 } }
    func set(_ date: Date) { instant.withLock { $0 = date } }
}

/// Keys and ids shared by the tests.
enum Fixture {
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let day: TimeInterval = 86_400
    static let alphaKey = "alpha-app-key-0123456789"
    static let alphaAdmin = "alpha-admin-key-0123456789"
    static let betaKey = "beta-app-key-0123456789"
    static let gammaKey = "gamma-app-key-0123456789"
    static let bundle = "com.example.alpha"

    /// A fresh test CA and a configuration with three apps: alpha and gamma (same bundle, both
    /// trusting the CA) and beta (another bundle).
    static func configuration(directory: URL) throws -> (ServerConfiguration, TestCertificateAuthority) {
        let ca = try TestCertificateAuthority.generate(
            notBefore: Date(timeIntervalSince1970: 1_577_836_800), notAfter: Date(timeIntervalSince1970: 2_208_988_800))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let root = directory.appendingPathComponent("root.der")
        try ca.rootCertificateDER.write(to: root)
        try (try TestReceipts.authority()).rootCertificateDER.write(to: directory.appendingPathComponent("receipt-root.der"))
        let products = [CatalogProductJSON.monthly, CatalogProductJSON.lifetime]
        let json: [String: Any] = [
            "apps": [
                [
                    "id": "alpha", "bundleId": bundle, "environments": ["Sandbox"], "trustedRoots": ["root.der", "receipt-root.der"],
                    "sharedSecret": "alpha-shared-secret",
                    "apiKeys": [["key": alphaKey, "role": "app"], ["key": alphaAdmin, "role": "admin"]], "products": products,
                ],
                [
                    "id": "beta", "bundleId": "com.example.beta", "environments": ["Sandbox"], "trustedRoots": ["root.der", "receipt-root.der"],
                    "apiKeys": [["key": betaKey, "role": "app"]], "products": products,
                ],
                [
                    "id": "gamma", "bundleId": bundle, "environments": ["Sandbox"], "trustedRoots": ["root.der", "receipt-root.der"],
                    "apiKeys": [["key": gammaKey, "role": "app"]], "products": products,
                ],
            ]
        ]
        let file = directory.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        return (try ServerConfiguration.load(file: file.path, environment: [:]), ca)
    }
}

enum CatalogProductJSON {
    static var monthly: [String: Any] {
        ["productId": "pro.monthly", "type": "autoRenewable", "subscriptionGroupIdentifier": "pro", "entitlements": ["pro"]]
    }
    static var lifetime: [String: Any] { ["productId": "pro.lifetime", "type": "nonConsumable", "entitlements": ["pro"]] }
}

/// A migrated store for `backend`, removed afterwards.
func withServerStore<T: Sendable>(_ backend: ServerBackend, _ body: @Sendable (any StorekeeperStorage) async throws -> T) async throws -> T {
    let logger = {
        var logger = Logger(label: "test.server.store")
        logger.logLevel = .warning
        return logger
    }()
    switch backend {
    case .memory:
        let store = InMemoryStore()
        try await store.migrate()
        return try await body(store)
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await SQLStore.withStore(.sqlite(path: directory.appendingPathComponent("s.sqlite").path), logger: logger, body)
    case .postgresql, .standby:
        guard let base = ServerBackend.postgresURL else { throw StoreError(code: .unavailable, message: "no PostgreSQL URL") }
        return try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_server_", logger: logger) { url in
            try await SQLStore.withStore(.postgres(url: url), logger: logger, body)
        }
    }
}

/// Two independent stores (separate connections or pools, as two server replicas have) on one
/// migrated database for `backend`, removed afterwards.
func withTwoServerStores<T: Sendable>(
    _ backend: ServerBackend, _ body: @Sendable (any StorekeeperStorage, any StorekeeperStorage) async throws -> T
) async throws -> T {
    let logger = {
        var logger = Logger(label: "test.server.store")
        logger.logLevel = .warning
        return logger
    }()
    switch backend {
    case .memory:
        // Replicas share one database; in memory, they share one store.
        let store = InMemoryStore()
        try await store.migrate()
        return try await body(store, store)
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = DatabaseLocation.sqlite(path: directory.appendingPathComponent("s.sqlite").path)
        return try await SQLStore.withStore(location, logger: logger) { first in
            try await SQLStore.withStore(location, logger: logger) { second in try await body(first, second) }
        }
    case .postgresql, .standby:
        guard let base = ServerBackend.postgresURL else { throw StoreError(code: .unavailable, message: "no PostgreSQL URL") }
        return try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_server_", logger: logger) { url in
            try await SQLStore.withStore(.postgres(url: url), logger: logger) { first in
                try await SQLStore.withStore(.postgres(url: url), logger: logger) { second in try await body(first, second) }
            }
        }
    }
}

/// A server on `backend` with the fixture's apps, its inbox drained by hand.
struct ServerHarness: Sendable {
    /// The read database's store for `store` (on the standby, same database), following every
    /// write of the test's server so that a test reads back what it just did.
    static func standbyReads(of store: any StorekeeperStorage, logger: Logger) throws -> (SQLStore, ReplicationWatch) {
        guard let primary = store as? SQLStore, let standby = ServerBackend.standbyURL else {
            throw StoreError(code: .unavailable, message: "no PostgreSQL standby URL")
        }
        // No database named: the primary's.
        var components = URLComponents(string: standby)
        components?.path = ""
        return try primary.standbyReads(url: components?.string ?? standby, maximumLag: .seconds(10), followingWrites: true, logger: logger)
    }

    let configuration: ServerConfiguration
    let ca: TestCertificateAuthority
    let clock: TestClock
    let store: any StorekeeperStorage
    let processor: InboxProcessor

    /// Runs `body` against a fresh server; `configure` may change the fixture's configuration
    /// and `appleClients` gives the apps' App Store Server API clients (none by default).
    static func run(
        _ backend: ServerBackend,
        configure: (inout ServerConfiguration) throws -> Void = { _ in },
        appleClients: (ServerConfiguration) throws -> AppleClients = { _ in AppleClients() },
        inboxSignal: InboxSignal? = nil,
        _ body: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-config-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (fixture, ca) = try Fixture.configuration(directory: directory)
        var edited = fixture
        try configure(&edited)
        let configuration = edited
        let clients = try appleClients(configuration)
        try await withServerStore(backend) { store in
            let clock = TestClock(Fixture.t0)
            var logger = Logger(label: "test.server")
            logger.logLevel = .warning
            for app in configuration.apps {
                try await store.saveApp(AppRecord(id: app.id, bundleId: app.bundleId, createdAt: Fixture.t0))
            }
            var dependencies = ServerDependencies(store: store, clock: { clock.now }, logger: logger, runsInboxWorker: false, appleClients: clients)
            dependencies.runsDispatcher = false
            dependencies.inboxSignal = inboxSignal
            let processor = InboxProcessor(apps: try AppDirectory(configuration: configuration), store: store, clock: { clock.now }, logger: logger)
            let harness = ServerHarness(configuration: configuration, ca: ca, clock: clock, store: store, processor: processor)
            guard backend == .standby else {
                let app = try buildApplication(configuration: configuration, dependencies: dependencies)
                try await app.test(.router) { client in try await body(harness, client) }
                return
            }
            let (reads, watch) = try Self.standbyReads(of: store, logger: logger)
            dependencies.reads = reads
            dependencies.replication = watch
            let app = try buildApplication(configuration: configuration, dependencies: dependencies)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await reads.run() }
                defer { group.cancelAll() }
                try await app.test(.router) { client in try await body(harness, client) }
            }
            #expect(watch.routedReads.failed == 0, "a read failed on the standby (a read path that writes or locks?)")
        }
    }
}
