import Foundation
import Logging
import StorekeeperStore
import Testing

/// The stores the shared suite runs on: the in-memory store and SQLite always (a fresh file
/// per test), PostgreSQL when `STOREKEEPER_TEST_POSTGRES_URL` names a server (each test in a
/// database of its own), and PostgreSQL reading from its streaming standby when
/// `STOREKEEPER_TEST_POSTGRES_STANDBY_URL` names one too (the store of `--read-database-url`:
/// its reads go to the standby once it has replayed the store's own writes).
enum TestBackend: String, CustomTestStringConvertible, Sendable, CaseIterable {
    case memory
    case sqlite
    case postgresql
    case standby

    static let postgresURL: String? = {
        let value = ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// The backends available in this run.
    static var available: [TestBackend] {
        if postgresURL == nil {
            FileHandle.standardError.write(
                Data(
                    "StorekeeperStoreTests: PostgreSQL tests SKIPPED (STOREKEEPER_TEST_POSTGRES_URL is not set)\n".utf8))
            return [.memory, .sqlite]
        }
        return TestCluster.standbyURL == nil ? [.memory, .sqlite, .postgresql] : [.memory, .sqlite, .postgresql, .standby]
    }

    var testDescription: String { rawValue }
}

/// Runs `body` with a migrated, empty store of `backend`: a new in-memory store, a fresh SQLite
/// file, or a fresh PostgreSQL database created beside the configured one and dropped afterwards.
func withTestStore<T: Sendable>(_ backend: TestBackend, _ body: @Sendable (any StorekeeperStorage) async throws -> T) async throws -> T {
    let logger = {
        var logger = Logger(label: "test.store")
        logger.logLevel = .warning
        return logger
    }()
    switch backend {
    case .memory:
        let store = InMemoryStore()
        try await store.migrate()
        return try await body(store)
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        return try await SQLStore.withStore(.sqlite(path: path), logger: logger, body)
    case .postgresql:
        guard let base = TestBackend.postgresURL else { throw StoreError(code: .unavailable, message: "no PostgreSQL URL") }
        return try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_store_", logger: logger) { url in
            try await SQLStore.withStore(.postgres(url: url), logger: logger, body)
        }
    case .standby:
        guard let base = TestBackend.postgresURL, let standby = TestCluster.standbyURL else {
            throw StoreError(code: .unavailable, message: "no PostgreSQL standby URL")
        }
        return try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_store_", logger: logger) { url in
            try await SQLStore.withStore(.postgres(url: url), logger: logger) { primary in
                let name = String(URLComponents(string: url)?.path.dropFirst() ?? "")
                let (reads, _) = try primary.standbyReads(
                    url: TestCluster.url(standby, database: name), maximumLag: .seconds(10), logger: logger)
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await reads.run() }
                    defer { group.cancelAll() }
                    return try await body(reads)
                }
            }
        }
    }
}
