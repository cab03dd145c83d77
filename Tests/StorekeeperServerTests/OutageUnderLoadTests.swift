import Foundation
import Logging
import StorekeeperStore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL cut off while notifications pour in: every POST is answered 200 (stored) or 503
/// with `Retry-After` and a JSON error — never anything else; `/health` says why; once the
/// database is back, POSTs succeed again within 5 s, and the same server then processes every
/// stored notification exactly once. In CI the database is away 6 s; `STOREKEEPER_SOAK=1` makes
/// it the issue's 30 s.
@Suite("Database outage under load", .serialized)
struct OutageUnderLoadTests {
    /// What the posters record besides the storm's own counts.
    final class Record: Sendable {
        let unexpected = Mutex([String]())
        let refusals = Mutex(0)
        let restoredAt = Mutex<Date?>(nil)
        let firstSuccessAfterRestore = Mutex<Date?>(nil)
    }

    /// The posters' own connections, so that a probe of `/health` never queues behind them.
    static let posting = URLSession(configuration: .ephemeral)

    /// A POST's status, `Retry-After` and body, or nil when nothing answered.
    static func post(port: Int, body: String) async -> (status: Int, retryAfter: String?, body: String)? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/apps/alpha/notifications")!)
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        request.httpBody = Data(body.utf8)
        guard let (data, response) = try? await posting.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        return (http.statusCode, http.value(forHTTPHeaderField: "Retry-After"), String(decoding: data, as: UTF8.self))
    }

    @Test(
        "PostgreSQL away under load: 200 or 503 with Retry-After, /health says why, back within seconds, nothing lost",
        .enabled(if: ServerBackend.postgresURL != nil, "needs STOREKEEPER_TEST_POSTGRES_URL"))
    func outageUnderLoad() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let base = try #require(ServerBackend.postgresURL)
        let outage: Double = KillStormTests.soak ? 30 : 6
        let count = KillStormTests.soak ? 3_000 : 600
        var logger = Logger(label: "test.outage")
        logger.logLevel = .warning
        let name = "sk_outload_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let direct = try await SQLStore.createPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
        let (forwarder, proxied) = try TCPForwarder.inFront(ofPostgres: direct)
        defer { forwarder.stop() }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-outload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        let now = Date()
        let chains = (0..<count).map { "outage-\($0)" }
        let bodies = try chains.map { try SignedData.subscribed(ca, chain: $0, now: now) }
        let server = try #require(
            try await ServerProcess.startHealthy(
                config: directory.appendingPathComponent("config.json"), dataDirectory: directory.appendingPathComponent("data"),
                databaseURL: proxied), "the server did not start")
        let storm = KillStormTests.Storm(count: count)
        let record = Record()
        let port = server.port

        try await withThrowingTaskGroup(of: Void.self) { posters in
            for _ in 0..<8 {
                posters.addTask {
                    while let index = storm.next() {
                        let answer = await Self.post(port: port, body: bodies[index])
                        switch answer?.status {
                        case 200:
                            storm.acknowledged.withLock { _ = $0.insert(index) }
                            if record.restoredAt.withLock({ $0 }) != nil {
                                record.firstSuccessAfterRestore.withLock { $0 = $0 ?? Date() }
                            }
                        case 503 where answer?.retryAfter != nil && answer?.body.contains("\"error\"") == true:
                            record.refusals.withLock { $0 += 1 }
                            storm.queue.withLock { $0.append(index) }
                            try await Task.sleep(for: .milliseconds(50))
                        default:
                            record.unexpected.withLock { $0.append("\(answer.map { "\($0.status) \($0.body.prefix(120))" } ?? "no answer")") }
                            storm.queue.withLock { $0.append(index) }
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                }
            }
            // The outage: once a third is stored, the database goes away, then comes back.
            while storm.acknowledged.withLock({ $0.count }) < count / 3 { try await Task.sleep(for: .milliseconds(5)) }
            forwarder.cut()
            try await Task.sleep(for: .seconds(1))
            let health = await server.request("/health")
            #expect(health?.0 == 503)
            #expect(health?.1["reason"] as? String == "the database cannot be reached")
            try await Task.sleep(for: .seconds(outage - 1))
            forwarder.restore()
            record.restoredAt.withLock { $0 = Date() }
            try await posters.waitForAll()
        }
        #expect(record.unexpected.withLock { $0 }.isEmpty, "\(record.unexpected.withLock { $0.prefix(5) })")
        #expect(record.refusals.withLock { $0 } > 0, "no POST met the outage")
        let restoredAt = try #require(record.restoredAt.withLock { $0 })
        let back = try #require(record.firstSuccessAfterRestore.withLock { $0 }, "nothing succeeded after the database returned")
            .timeIntervalSince(restoredAt)
        #expect(back < 5, "POSTs succeeded again only \(back) s after the database returned")
        #expect(storm.acknowledged.withLock { $0.count } == count)

        print(
            "outage under load: \(count) notifications, database away \(Int(outage)) s, \(record.refusals.withLock { $0 }) POSTs answered 503, "
                + "back \(String(format: "%.2f", back)) s after")
        // Every stored notification is processed exactly once, by the same server: its workers
        // give up on operations stuck on a dropped connection and carry on.
        let drained = await server.waitFor(seconds: 60) {
            await server.request("/health")?.1["pendingNotifications"] as? String == "0"
        }
        #expect(drained, "notifications were left pending")
        var wrong: [String] = []
        for chain in chains where drained {
            let rows = await server.request("/v1/apps/alpha/notifications?originalTransactionId=\(chain)", key: Fixture.alphaKey)
            let states = ((rows?.1["notifications"] as? [[String: Any]]) ?? []).compactMap { $0["state"] as? String }
            if states.filter({ $0 == "processed" }).count != 1 { wrong.append("\(chain): \(states)") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(await server.stop(), "the server did not stop gracefully on SIGTERM")
        if server.process.isRunning {
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
        }
        try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
    }
}
