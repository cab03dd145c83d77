import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A cluster of its own (Scripts/test-postgres-cluster.sh on free ports): a primary and a
/// standby it waits for. The server is given both hosts, libpq style, with
/// `target_session_attrs=read-write`; the primary is killed (`kill -9`) while notifications pour
/// in and the standby promoted. Every POST is answered 200 or 503 with `Retry-After`; the server
/// finds the new primary by itself; and every notification answered 200 is processed exactly once.
@Suite("Failover under load", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct FailoverTests {
    /// A private cluster, destroyed by ``destroy()``.
    struct Cluster {
        let directory: String
        let port: Int
        let exports: [String: String]

        static func start() async throws -> Cluster {
            let script = InteropPython.repositoryRoot.appendingPathComponent("Scripts/test-postgres-cluster.sh").path
            // Ports from a range the CI cluster (54341…) and the benchmarks (5546x) do not use.
            let port = 56_000 + Int.random(in: 0..<500) * 4
            let directory = "/tmp/sk-failover-\(port)-\(UUID().uuidString.prefix(8))"
            var environment = ProcessInfo.processInfo.environment
            environment["PG_PORT"] = "\(port)"
            environment["PG_DIR"] = directory
            let finished = try await ChildProcess.run("/bin/bash", [script], environment: environment, timeout: 300)
            guard finished.status == 0 else {
                throw ClusterFailed(description: "test-postgres-cluster.sh failed: \(finished.errorText.suffix(2000))")
            }
            var exports: [String: String] = [:]
            for line in finished.outputText.split(separator: "\n") where line.hasPrefix("export ") {
                let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
                if pair.count == 2 { exports[String(pair[0])] = String(pair[1]) }
            }
            return Cluster(directory: directory, port: port, exports: exports)
        }

        /// Both hosts, the primary first, for writes only.
        var failoverURL: String {
            "postgres://postgres:postgres@127.0.0.1:\(port),127.0.0.1:\(port + 1)/app?sslmode=disable&target_session_attrs=read-write&connect_timeout=5"
        }

        /// Kills the primary's postmaster with SIGKILL and promotes the standby.
        func killPrimaryAndPromote() throws {
            let pidFile = try String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)
            guard let pid = pid_t(pidFile.split(separator: "\n").first ?? "") else { throw ClusterFailed(description: "no postmaster.pid") }
            kill(pid, SIGKILL)
            let bin = try Self.binDirectory()
            let promote = [bin + "/pg_ctl", "-D", directory + "/standby/data", "-w", "-t", "60", "promote"]
            let command = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + promote : promote
            let finished = try ChildProcess.runWaiting(command[0], Array(command.dropFirst()), timeout: 90)
            guard finished.status == 0 else { throw ClusterFailed(description: "pg_ctl promote failed: \(finished.errorText)") }
        }

        static func binDirectory() throws -> String {
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
            guard let newest = versions.compactMap(Int.init).max() else { throw ClusterFailed(description: "no PostgreSQL in /usr/lib/postgresql") }
            return "/usr/lib/postgresql/\(newest)/bin"
        }

        func destroy() {
            let script = InteropPython.repositoryRoot.appendingPathComponent("Scripts/test-postgres-cluster.sh").path
            var environment = ProcessInfo.processInfo.environment
            environment["PG_PORT"] = "\(port)"
            environment["PG_DIR"] = directory
            _ = try? ChildProcess.runWaiting("/bin/bash", [script, "destroy"], environment: environment, timeout: 120)
        }
    }

    struct ClusterFailed: Error, CustomStringConvertible {
        var description: String
    }

    static var clusterAvailable: Bool {
        ProcessInfo.processInfo.environment["STOREKEEPER_REQUIRE_CLUSTER"] == "1"
            || (FileManager.default.fileExists(atPath: "/usr/sbin/pgbouncer") && (try? Cluster.binDirectory()) != nil)
    }

    @Test(
        "kill -9 the primary mid-stream, promote the standby: 200 or 503 with Retry-After, the new primary found, each acknowledged notification processed once",
        .enabled(if: clusterAvailable, "needs PostgreSQL and pgbouncer (Scripts/test-postgres-cluster.sh)"))
    func failover() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let cluster = try await Cluster.start()
        defer { cluster.destroy() }
        let count = 600
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-failover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        let log = directory.appendingPathComponent("server.log")
        let now = Date()
        let chains = (0..<count).map { "failover-\($0)" }
        let bodies = try chains.map { try SignedData.subscribed(ca, chain: $0, now: now) }
        let server = try #require(
            try await ServerProcess.startHealthy(
                config: directory.appendingPathComponent("config.json"), dataDirectory: directory.appendingPathComponent("data"),
                databaseURL: cluster.failoverURL, log: log), "the server did not start")
        defer { server.kill() }

        let report = try await FaultUnderLoad(server: server, bodies: bodies).run(
            duration: 2, fault: { try cluster.killPrimaryAndPromote() }, heal: {})
        #expect(report.unexpected.isEmpty, "\(report.unexpected.prefix(5))")
        #expect(report.acknowledged == count)
        let back = try #require(report.back, "nothing succeeded after the promotion; the server logged:\n\(ServerProcess.tail(of: log))")
        print(
            "failover under load: \(count) notifications, \(report.refusals) POSTs answered 503 during the failover, "
                + "first 200 \(String(format: "%.2f", back)) s after the fault's 2 s window")
        #expect((try? String(contentsOf: log, encoding: .utf8))?.contains("moved to another host") == true)
        // Every notification Apple was told was stored is on the new primary, processed once.
        await FaultUnderLoad.expectEachProcessedOnce(server: server, chains: chains)
        #expect(await server.stop(), "the server did not stop gracefully on SIGTERM")
    }
}
