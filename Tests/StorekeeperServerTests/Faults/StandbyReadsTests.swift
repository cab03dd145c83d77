import Foundation
import HummingbirdTesting
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Testing

@testable import StorekeeperApps
@testable import StorekeeperJobs
@testable import StorekeeperServer

/// A server with a read database (`--read-database-url`): lists and figures read on the
/// streaming standby, a customer's state on the primary, and the standby's lag in `/health` and
/// `/metrics`. Needs Scripts/test-postgres-cluster.sh's standby (CI requires it).
@Suite("A server reading from a streaming standby")
struct StandbyReadsServerTests {
    static var logger: Logger { ReconciliationTests.quiet }
    static let standbyURL: String? = {
        let value = ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_STANDBY_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    @Test("a grant is in the customer's state at once; listings read on the standby; /health and /metrics show its lag")
    func standbyServes() async throws {
        guard let base = ServerBackend.postgresURL, let standbyBase = Self.standbyURL else {
            if ProcessInfo.processInfo.environment["STOREKEEPER_REQUIRE_CLUSTER"] == "1" {
                Issue.record("STOREKEEPER_REQUIRE_CLUSTER=1 but STOREKEEPER_TEST_POSTGRES_STANDBY_URL is missing")
            }
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-standby-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (configuration, _) = try Fixture.configuration(directory: directory)
        try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_standby_server_", logger: Self.logger) { url in
            try await SQLStore.withStore(.postgres(url: url), logger: Self.logger) { store in
                var standby = try #require(URLComponents(string: standbyBase))
                standby.path = try #require(URLComponents(string: url)).path
                let (reads, watch) = try store.standbyReads(url: try #require(standby.string), maximumLag: .seconds(10), logger: Self.logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await reads.run() }
                    defer { group.cancelAll() }
                    var dependencies = ServerDependencies(store: store, clock: { Fixture.t0 }, logger: Self.logger, runsInboxWorker: false)
                    dependencies.reads = reads
                    dependencies.replication = watch
                    let app = try buildApplication(configuration: configuration, dependencies: dependencies)
                    try await app.test(.router) { client in
                        var serving = false
                        for _ in 0..<300 where !serving {
                            serving = try await client.call(.get, "/health").json["standby"] as? String == "serving"
                            if !serving { try await Task.sleep(for: .milliseconds(100)) }
                        }
                        #expect(serving)
                        let health = try await client.call(.get, "/health")
                        #expect(health.status == 200)
                        #expect(Double(health.json["standbyLagSeconds"] as? String ?? "") != nil)
                        #expect(!health.text.contains("postgres:") && !health.text.contains("password"))

                        let grant = #"{"productId": "pro.lifetime", "reason": "support"}"#
                        #expect(
                            try await client.call(.post, "/v1/apps/alpha/customers/c1/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
                        // Read right after the write, from the primary: the grant is there.
                        let state = try await client.call(.get, "/v1/apps/alpha/customers/c1", key: Fixture.alphaKey)
                        #expect(state.status == 200)
                        #expect(state.text.contains("pro.lifetime"))

                        let before = watch.routedReads.standby
                        #expect(try await client.call(.get, "/v1/apps/alpha/notifications", key: Fixture.alphaKey).status == 200)
                        #expect(watch.routedReads.standby > before)

                        let metrics = try await client.call(.get, "/metrics").text
                        #expect(metrics.contains("storekeeper_standby_lag_seconds"))
                        #expect(metrics.contains("storekeeper_standby_serving 1"))
                    }
                }
            }
        }
    }
}
