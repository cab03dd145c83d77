import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three `storekeeper serve` processes on one PostgreSQL database, sharing a storm of
/// notifications sent to each in turn: every notification is processed once, every job runs
/// once, and every event reaches the webhook once.
@Suite("Three replicas on one PostgreSQL", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct ReplicaTests {
    @Test(
        "three replicas share the load: each notification processed once, each job run once, each event delivered once",
        .enabled(if: ServerBackend.postgresURL != nil, "needs STOREKEEPER_TEST_POSTGRES_URL"))
    func threeReplicas() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let base = try #require(ServerBackend.postgresURL)
        let count = KillStormTests.soak ? 3_000 : 450
        var logger = Logger(label: "test.replicas")
        logger.logLevel = .warning
        let name = "sk_replicas_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let url = try await SQLStore.createPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-replicas-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        let config = directory.appendingPathComponent("config.json")
        let receiver = try await LoopbackWebhookReceiver(delay: .milliseconds(2))
        try receiver.point(configuration: config)
        let now = Date()
        let chains = (0..<count).map { "replica-\($0)" }
        let bodies = try chains.map { try SignedData.subscribed(ca, chain: $0, now: now) }

        var launched: [ServerProcess] = []
        for index in 0..<3 {
            let server = try await ServerProcess.startHealthy(
                config: config, dataDirectory: directory.appendingPathComponent("data-\(index)"), databaseURL: url)
            launched.append(try #require(server, "replica \(index) did not start"))
        }
        let replicas = launched
        let ports = replicas.map(\.port)
        let storm = KillStormTests.Storm(count: count)
        let started = Date()
        try await withThrowingTaskGroup(of: Void.self) { posters in
            for poster in 0..<12 {
                posters.addTask {
                    var turn = poster
                    while Date().timeIntervalSince(started) < 300, let index = storm.next() {
                        turn += 1
                        let answer = await FaultUnderLoad.post(port: ports[turn % ports.count], body: bodies[index])
                        if answer?.status == 200 {
                            storm.acknowledged.withLock { _ = $0.insert(index) }
                        } else {
                            storm.queue.withLock { $0.append(index) }
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                }
            }
            try await posters.waitForAll()
        }
        #expect(storm.acknowledged.withLock { $0.count } == count)
        await FaultUnderLoad.expectEachProcessedOnce(server: replicas[0], chains: chains)

        try await SQLStore.withStore(.postgres(url: url), logger: logger) { store in
            // Events: every delivery delivered, and the receiver saw each exactly once.
            var counts: [DeliveryState: Int] = [:]
            let settled = await replicas[0].waitFor(seconds: max(60, Double(count) / 10)) {
                counts = (try? await store.deliveryCounts(appId: "alpha"))?["backend"] ?? [:]
                let delivered = counts[.delivered] ?? 0
                return delivered > 0 && counts.values.reduce(0, +) == delivered && receiver.distinct == delivered
            }
            let delivered = counts[.delivered] ?? 0
            #expect(settled, "deliveries \(counts), receiver has \(receiver.distinct)")
            #expect(delivered >= count, "fewer events than subscriptions")
            let ids = receiver.received.ids.withLock { $0 }
            #expect(ids.count == Set(ids).count, "\(ids.count - Set(ids).count) events were delivered twice")
            // Jobs: the periodic plan written by all three replicas is one job per period, run once.
            let jobs = try await store.jobs(appId: "alpha", kind: "intakeHealth", limit: 1_000)
            #expect(!jobs.isEmpty, "no periodic job ran")
            #expect(jobs.allSatisfy { $0.state == .done && $0.attempts == 1 }, "\(jobs.map { "\($0.state) \($0.attempts)" })")
            print(
                "three replicas: \(count) notifications over ports \(ports), \(delivered) events delivered once each, "
                    + "\(jobs.count) periodic job(s) run once, \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        }
        for replica in replicas {
            #expect(await replica.stop(), "a replica did not stop gracefully")
        }
        await receiver.stop()
        try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
    }
}
