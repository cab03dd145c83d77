import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL cut off while notifications pour in: every POST is answered 200 (stored) or 503
/// with `Retry-After` and a JSON error — never anything else; `/health` says why; once the
/// database is back, POSTs succeed again within 5 s, and the same server then processes every
/// stored notification exactly once. In CI the database is away 6 s; `STOREKEEPER_SOAK=1` makes
/// it the issue's 30 s.
@Suite("Database outage under load", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct OutageUnderLoadTests {
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
        let log = directory.appendingPathComponent("server.log")
        let now = Date()
        let chains = (0..<count).map { "outage-\($0)" }
        let bodies = try chains.map { try SignedData.subscribed(ca, chain: $0, now: now) }
        let server = try #require(
            try await ServerProcess.startHealthy(
                config: directory.appendingPathComponent("config.json"), dataDirectory: directory.appendingPathComponent("data"),
                databaseURL: proxied, log: log), "the server did not start")
        // A failed expectation that ends the test early does not leave the server running.
        defer { server.kill() }

        let report = try await FaultUnderLoad(server: server, bodies: bodies).run(
            duration: outage, fault: { forwarder.cut() }, heal: { forwarder.restore() })
        #expect(report.health?.status == 503)
        #expect(report.health?.reason == "the database cannot be reached")
        #expect(report.unexpected.isEmpty, "\(report.unexpected.prefix(5))")
        #expect(report.refusals > 0, "no POST met the outage")
        let back = try #require(report.back, "nothing succeeded after the database returned; the server logged:\n\(ServerProcess.tail(of: log))")
        #expect(back < 5, "POSTs succeeded again only \(back) s after the database returned; the server logged:\n\(ServerProcess.tail(of: log))")
        #expect(report.acknowledged == count)
        print(
            "outage under load: \(count) notifications, database away \(Int(outage)) s, \(report.refusals) POSTs answered 503, "
                + "back \(String(format: "%.2f", back)) s after")
        // The same server's workers give up on operations stuck on a dropped connection and carry on.
        await FaultUnderLoad.expectEachProcessedOnce(server: server, chains: chains)
        #expect(await server.stop(), "the server did not stop gracefully on SIGTERM")
        try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
    }
}
