import AsyncHTTPClient
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `storekeeper serve` as a child process, so its memory is its own: started on a
/// loopback port with a configuration file, watched through `/proc/<pid>/status`, and stopped
/// with SIGTERM (SIGKILL if it has not ended 30 seconds later). Its output goes to a log file.
struct ServerChild {
    let process: Process
    let port: Int

    var base: String { "http://127.0.0.1:\(port)" }
    var memory: ProcessMemory? { ProcessMemory.of(pid: process.processIdentifier) }

    /// This program's own executable (the `storekeeper` that runs the benchmark).
    static var executable: URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0])
    }

    /// Runs `storekeeper arguments…` to its end; returns its exit status and how long it took.
    static func run(_ arguments: [String], log: URL) throws -> (status: Int32, seconds: Double) {
        let clock = ContinuousClock()
        let began = clock.now
        let process = try launch(arguments, log: log)
        process.waitUntilExit()
        return (process.terminationStatus, (clock.now - began).seconds)
    }

    static func launch(_ arguments: [String], log: URL) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let output = try FileHandle(forWritingTo: log)
        _ = try output.seekToEnd()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts `storekeeper serve --config config --port P` on a random high loopback port (a
    /// port already taken makes the server exit at once; the caller tries another).
    static func start(config: URL, log: URL) throws -> ServerChild {
        let port = Int.random(in: 20_000..<60_000)
        return ServerChild(process: try launch(["serve", "--config", config.path, "--port", String(port)], log: log), port: port)
    }

    /// Starts the server as ``start(config:log:)`` does, on another port when it exits at once
    /// (its port was taken), up to three times.
    static func startOnFreePort(config: URL, log: URL) async throws -> ServerChild {
        var server = try start(config: config, log: log)
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(300))
            if server.process.isRunning { break }
            server = try start(config: config, log: log)
        }
        return server
    }

    /// ``waitUntilHealthy(client:seconds:)`` with a client of its own, shut down afterwards.
    func waitUntilHealthy(seconds: Double) async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let healthy: Result<Void, any Error>
        do {
            healthy = .success(try await waitUntilHealthy(client: client, seconds: seconds))
        } catch {
            healthy = .failure(error)
        }
        try? await client.shutdown()
        try healthy.get()
    }

    /// Waits until `GET /health` answers 200; throws if the process ends or `seconds` pass first.
    func waitUntilHealthy(client: HTTPClient, seconds: Double) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw ScaleBenchmark.Failure(description: "the server exited with status \(process.terminationStatus)") }
            var request = HTTPClientRequest(url: base + "/health")
            request.method = .GET
            if let response = try? await client.execute(request, timeout: .seconds(5)), response.status.code == 200 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ScaleBenchmark.Failure(description: "the server did not answer /health within \(seconds) seconds")
    }

    /// Stops the server gracefully, or kills it after 30 seconds.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<300 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
