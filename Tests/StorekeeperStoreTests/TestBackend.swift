import Foundation
import Logging
import StorekeeperStore

/// The databases the shared suite runs on: SQLite always (a fresh file per test), PostgreSQL
/// when `STOREKEEPER_TEST_POSTGRES_URL` names a server (each test in a fresh schema-free
/// database state: tables are dropped first).
enum TestBackend: String, CustomTestStringConvertible, Sendable, CaseIterable {
    case sqlite
    case postgresql

    static let postgresURL: String? = {
        let value = ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// The backends available in this run.
    static var available: [TestBackend] {
        if postgresURL == nil {
            FileHandle.standardError.write(Data(
                "StorekeeperStoreTests: PostgreSQL tests SKIPPED (STOREKEEPER_TEST_POSTGRES_URL is not set)\n".utf8))
            return [.sqlite]
        }
        return [.sqlite, .postgresql]
    }

    var testDescription: String { rawValue }
}

/// PostgreSQL tests share one server; they take turns so each starts from empty tables.
actor PostgresTurns {
    static let shared = PostgresTurns()
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if !busy { busy = true; return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}

/// Runs `body` with a migrated, empty store of `backend`.
func withTestStore<T: Sendable>(_ backend: TestBackend, _ body: @Sendable (SQLStore) async throws -> T) async throws -> T {
    var logger = Logger(label: "test.store")
    logger.logLevel = .warning
    switch backend {
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        return try await SQLStore.withStore(.sqlite(path: path), logger: logger, body)
    case .postgresql:
        guard let url = TestBackend.postgresURL else { throw StoreError(code: .unavailable, message: "no PostgreSQL URL") }
        await PostgresTurns.shared.acquire()
        do {
            let result = try await SQLStore.withStore(.postgres(url: url), logger: logger, migrate: false) { store in
                try await store.dropEverythingForTests()
                try await store.migrate()
                return try await body(store)
            }
            await PostgresTurns.shared.release()
            return result
        } catch {
            await PostgresTurns.shared.release()
            throw error
        }
    }
}
