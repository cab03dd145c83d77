import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Testing

@Suite("storekeeper bench server", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct BenchServerCommandTests {
    /// Runs the built binary with `arguments`, at most `timeout` seconds.
    static func run(_ arguments: [String], timeout: TimeInterval = 120) async throws -> (status: Int32, output: Data) {
        let finished = try await ChildProcess.run(ServerProcess.binary.path, arguments, error: .null, timeout: timeout)
        return (finished.status, finished.output)
    }

    @Test("a tiny run ingests, processes and reads everything and prints its figures", arguments: ServerBackend.databases)
    func tinyRun(backend: ServerBackend) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        var arguments = ["bench", "server", "--notifications", "12", "--reads", "9", "--concurrency", "3", "--timeout", "90"]
        var cleanup: (@Sendable () async -> Void)?
        if backend == .postgresql, let base = ServerBackend.postgresURL {
            let logger = Logger(label: "test.bench")
            let name = "sk_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            let url = try await SQLStore.createPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger)
            arguments += ["--database-url", url]
            cleanup = { try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(name), logger: logger) }
        }
        let result = try await Self.run(arguments)
        await cleanup?()
        #expect(result.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        #expect(report["database"] as? String == backend.rawValue)
        #expect(report["notifications"] as? Int == 12)
        #expect(report["reads"] as? Int == 9)
        #expect(report["concurrency"] as? Int == 3)
        #expect(report["failures"] as? Int == 0)
        for key in [
            "ingestSeconds", "ingestedPerSecond", "processedPerSecond", "cpuMillisecondsPerNotification", "readsPerSecond", "healthPerSecond",
        ] {
            #expect(((report[key] as? Double) ?? 0) > 0, "\(key)")
        }
    }

    @Test("out-of-range options are usage errors")
    func usage() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        for arguments in [["--notifications", "0"], ["--concurrency", "0"], ["--reads", "-1"], ["--database-url", "mysql://x"]] {
            #expect(try await Self.run(["bench", "server"] + arguments).status == 2)
        }
    }
}
