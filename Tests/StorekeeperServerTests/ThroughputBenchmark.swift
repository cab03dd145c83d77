import Foundation
import HummingbirdTesting
import StorekeeperServer
import StorekeeperTestSupport
import Testing

/// Throughput on this machine, run only when `STOREKEEPER_BENCH=1`:
/// `STOREKEEPER_BENCH=1 swift test --filter ThroughputBenchmark` (add
/// `STOREKEEPER_TEST_POSTGRES_URL` for PostgreSQL). Prints notifications ingested per second
/// (received through the router, stored in the inbox, verified, recorded) and status reads per
/// second (`GET /v1/apps/{appId}/subscriptions/{id}`: ledger read plus engine), each with 8
/// concurrent clients.
@Suite("Throughput benchmark", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct ThroughputBenchmark {
    static let enabled = ProcessInfo.processInfo.environment["STOREKEEPER_BENCH"] == "1"

    @Test(
        "notifications ingested and status reads per second", .enabled(if: enabled, "set STOREKEEPER_BENCH=1 to run"),
        arguments: ServerBackend.available)
    func throughput(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let count = 2000
            let t0 = Fixture.t0
            var bodies: [String] = []
            for index in 0..<count {
                let id = "b\(index)"
                let tx = try SignedData.transaction(id: id, original: id, purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
                bodies.append(
                    try SignedData.notification(
                        harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: t0, transaction: tx,
                        renewal: try SignedData.renewal(original: id, autoRenew: true, signed: t0)))
            }
            harness.clock.set(t0 + Fixture.day)
            let signedBodies = bodies
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in stride(from: worker, to: count, by: 8) {
                            _ = try await client.call(.post, "/v1/apps/alpha/notifications", body: signedBodies[index])
                        }
                    }
                }
                try await group.waitForAll()
            }
            let received = ContinuousClock.now - start
            try await harness.processor.drain(batchSize: 64)
            let ingested = ContinuousClock.now - start
            #expect(try await client.status("alpha", "b0", key: Fixture.alphaKey) == "active")
            let reads = 4000
            let readStart = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in stride(from: worker, to: reads, by: 8) {
                            _ = try await client.status("alpha", "b\(index % count)", key: Fixture.alphaKey)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let read = ContinuousClock.now - readStart
            func rate(_ n: Int, _ d: Duration) -> Int { Int(Double(n) / (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)) }
            print(
                "BENCH \(backend.rawValue): received \(rate(count, received))/s into the inbox; ingested (received + verified + recorded) \(rate(count, ingested))/s; status reads \(rate(reads, read))/s"
            )
        }
    }
}
