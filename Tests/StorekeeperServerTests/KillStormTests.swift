import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `kill -9` again and again while notifications pour in, as Apple would send them: each is
/// sent until it is answered 200. In CI: 1,000 notifications at concurrency 16 and five kills per
/// database; `STOREKEEPER_SOAK=1` runs the issue's 10,000 with ten kills.
@Suite("Crash recovery under load", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct KillStormTests {
    /// What the posters and the killer share: the server's current port, the notifications
    /// still to send, and those answered 200.
    final class Storm: Sendable {
        let port = Mutex(0)
        let queue: Mutex<[Int]>
        let acknowledged = Mutex(Set<Int>())
        let attempts = Mutex(0)

        init(count: Int) {
            queue = Mutex(Array(0..<count))
        }

        func next() -> Int? {
            queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
    }

    static let soak = ProcessInfo.processInfo.environment["STOREKEEPER_SOAK"] == "1"

    @Test("SIGKILL during a storm of notification POSTs: every one answered 200 is processed exactly once", arguments: ServerBackend.databases)
    func killStorm(backend: ServerBackend) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let (count, kills, concurrency) = Self.soak ? (10_000, 10, 16) : (1_000, 5, 16)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-storm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        let config = directory.appendingPathComponent("config.json")
        var logger = Logger(label: "test.storm")
        logger.logLevel = .warning
        var databaseURL: String?
        let databaseName = "sk_storm_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        if backend == .postgresql, let base = ServerBackend.postgresURL {
            databaseURL = try await SQLStore.createPostgresDatabaseForTests(baseURL: base, name: String(databaseName), logger: logger)
        }
        let now = Date()
        let chains = (0..<count).map { "storm-\($0)" }
        let bodies = try chains.map { try SignedData.subscribed(ca, chain: $0, now: now) }
        let data = directory.appendingPathComponent("data")
        var server = try #require(
            try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: databaseURL), "the server did not start")
        let storm = Storm(count: count)
        storm.port.withLock { $0 = server.port }

        let started = Date()
        try await withThrowingTaskGroup(of: Void.self) { posters in
            for _ in 0..<concurrency {
                posters.addTask {
                    while let index = storm.next() {
                        let port = storm.port.withLock { $0 }
                        storm.attempts.withLock { $0 += 1 }
                        let answer = await ServerProcess.request(
                            port: port,
                            "/v1/apps/alpha/notifications", method: "POST", body: bodies[index])
                        if answer?.0 == 200 {
                            storm.acknowledged.withLock { _ = $0.insert(index) }
                        } else {
                            // Not answered: Apple sends it again.
                            storm.queue.withLock { $0.append(index) }
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                }
            }
            // The killer: SIGKILL at evenly spaced points of the storm, then a restart.
            for kill in 1...kills {
                let threshold = count * kill / (kills + 1)
                while storm.acknowledged.withLock({ $0.count }) < threshold { try await Task.sleep(for: .milliseconds(5)) }
                server.process.kill()
                server.process.waitUntilExit()
                server = try #require(
                    try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: databaseURL),
                    "the server did not restart after kill \(kill)")
                storm.port.withLock { $0 = server.port }
            }
            try await posters.waitForAll()
        }
        let stormSeconds = Date().timeIntervalSince(started)
        #expect(storm.acknowledged.withLock { $0.count } == count)

        // Leases a killed PostgreSQL worker held run out (30 s) before its rows are taken again.
        let drained = await server.waitFor(seconds: 120) {
            await server.request("/health")?.1["pendingNotifications"] as? String == "0"
        }
        #expect(drained, "notifications were left pending")
        var processedRows = 0
        var wrong: [String] = []
        for chain in chains {
            let rows = await server.request("/v1/apps/alpha/notifications?originalTransactionId=\(chain)", key: Fixture.alphaKey)
            let states = ((rows?.1["notifications"] as? [[String: Any]]) ?? []).compactMap { $0["state"] as? String }
            let processed = states.filter { $0 == "processed" }.count
            processedRows += processed
            let status = await server.request("/v1/apps/alpha/subscriptions/\(chain)", key: Fixture.alphaKey)?.1["status"] as? String
            if processed != 1 || states.contains(where: { $0 != "processed" && $0 != "duplicate" }) || status != "active" {
                wrong.append("\(chain): \(states) \(status ?? "no status")")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(processedRows == count)
        let attempts = storm.attempts.withLock { $0 }
        print("kill storm (\(backend.rawValue)): \(count) notifications, \(kills) kills, \(attempts) POSTs, \(Int(stormSeconds)) s")
        #expect(await server.stop(), "the server did not stop gracefully on SIGTERM")
        if let base = ServerBackend.postgresURL, backend == .postgresql {
            try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(databaseName), logger: logger)
        }
    }
}
