import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `storekeeper serve` binary as a child process on a free loopback port.
struct ServerProcess {
    let process: ChildProcess
    let port: Int

    static var binary: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("storekeeper")
    }

    /// The server's log goes to `log` (appended) when given, else where `STOREKEEPER_TEST_SERVER_LOG` says.
    static func start(config: URL, dataDirectory: URL, port: Int, databaseURL: String?, log: URL? = nil) throws -> ServerProcess {
        var arguments = ["serve", "--config", config.path, "--data-dir", dataDirectory.path, "--port", "\(port)"]
        if let databaseURL { arguments += ["--database-url", databaseURL] }
        // STOREKEEPER_TEST_SERVER_LOG=path keeps the server's log (appended) to look into a failure.
        let log = log?.path ?? ProcessInfo.processInfo.environment["STOREKEEPER_TEST_SERVER_LOG"].flatMap { $0.isEmpty ? nil : $0 }
        let process = try ChildProcess(
            binary.path, arguments, environment: ["STOREKEEPER_LOG_LEVEL": "warning", "PATH": "/usr/bin:/bin"],
            output: log.map { .file($0) } ?? .null, errorToOutput: true)
        return ServerProcess(process: process, port: port)
    }

    /// Starts the server on a free port and waits until `/health` answers. A port that another
    /// process took between `freePort()` and the server's bind makes the server exit: then it
    /// starts again on another port (three tries).
    static func startHealthy(config: URL, dataDirectory: URL, databaseURL: String?, log: URL? = nil) async throws -> ServerProcess? {
        for _ in 0..<3 {
            let server = try start(config: config, dataDirectory: dataDirectory, port: freePort(), databaseURL: databaseURL, log: log)
            var exited = false
            let up = await server.waitFor(seconds: 180) {
                if !server.process.isRunning {
                    exited = true
                    return true
                }
                return await server.request("/health")?.0 == 200
            }
            if up, !exited { return server }
            server.process.kill()
            server.process.waitUntilExit()
        }
        return nil
    }

    func request(_ path: String, method: String = "GET", key: String? = nil, body: String? = nil) async -> (Int, [String: Any])? {
        await Self.request(port: port, path, method: method, key: key, body: body)
    }

    /// A request to a server on `port`, with no process at hand (one killed and not yet restarted).
    static func request(port: Int, _ path: String, method: String = "GET", key: String? = nil, body: String? = nil) async -> (Int, [String: Any])? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        // Generous: a debug server beside other suites can take seconds to verify a signature.
        request.timeoutInterval = 60
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body { request.httpBody = Data(body.utf8) }
        guard let (data, response) = try? await URLSession.shared.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        return (http.statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// Polls until `check` holds, at most `seconds`.
    func waitFor(seconds: Double, _ check: () async -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if await check() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// The last `count` lines of the log at `url` (where ``start(config:dataDirectory:port:databaseURL:log:)``
    /// sent it), for a failure's message.
    static func tail(of url: URL, lines count: Int = 12) -> String {
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(count).joined(separator: "\n")
    }

    /// SIGTERM, then at most 60 s for a graceful exit (SIGKILL after that).
    func stop() async -> Bool {
        process.terminate()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning {
            process.kill()
            process.waitUntilExit()
            return false
        }
        return true
    }

    /// SIGKILL unless the server has exited, and its exit reaped: for a `defer`, so that an
    /// expectation ending a test early leaves no server running.
    func kill() {
        guard process.isRunning else { return }
        process.kill()
        process.waitUntilExit()
    }

    /// A TCP port nothing listens on now.
    static func freePort() -> Int { LoopbackPort.free() }
}

@Suite("Crash recovery", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct CrashRecoveryTests {
    @Test("a server killed with SIGKILL right after answering 200 processes the notification after restart", arguments: ServerBackend.databases)
    func killNineLosesNothing(backend: ServerBackend) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        let config = directory.appendingPathComponent("config.json")
        var logger = Logger(label: "test.crash")
        logger.logLevel = .warning
        var databaseURL: String?
        let databaseName = "sk_kill_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        if backend == .postgresql, let base = ServerBackend.postgresURL {
            databaseURL = try await SQLStore.createPostgresDatabaseForTests(baseURL: base, name: String(databaseName), logger: logger)
        }
        let now = Date()
        let tx = try SignedData.transaction(id: "k9", original: "k9", purchase: now - 3600, expires: now + 30 * Fixture.day, signed: now - 60)
        let body = try SignedData.notification(
            ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: now - 60, transaction: tx,
            renewal: try SignedData.renewal(original: "k9", autoRenew: true, signed: now - 60))
        let data = directory.appendingPathComponent("data")

        let first = try #require(
            try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: databaseURL), "the server did not start")
        let answer = await first.request("/v1/apps/alpha/notifications", method: "POST", body: body)
        first.process.kill()
        first.process.waitUntilExit()
        #expect(answer?.0 == 200)

        let second = try #require(
            try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: databaseURL), "the server did not restart")
        let recovered = await second.waitFor(seconds: 180) {
            await second.request("/v1/apps/alpha/subscriptions/k9", key: Fixture.alphaKey)?.1["status"] as? String == "active"
        }
        #expect(recovered, "the notification was lost")
        #expect(await second.stop(), "the server did not stop gracefully on SIGTERM")
        if let base = ServerBackend.postgresURL, backend == .postgresql {
            try? await SQLStore.dropPostgresDatabaseForTests(baseURL: base, name: String(databaseName), logger: logger)
        }
    }
}
