import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// `storekeeper health`: asks a running server's `/health` and exits 0 when it answers 200,
/// 1 otherwise. The container image has no curl; its health check, the compose file's and the
/// Kubernetes probes run this instead.
public struct HealthCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check a running server's /health: exit 0 when it answers 200, 1 otherwise."
    )

    /// Far above a healthy answer (one database query), far below a probe's period.
    static let defaultTimeoutSeconds = 5

    /// The most of an answer read: `/health` is a small JSON object.
    static let maximumAnswerBytes = 64 * 1024

    @Option(help: "The URL to ask. Defaults to http://127.0.0.1:$STOREKEEPER_PORT/health (port 8080 when unset).")
    var url: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Int = HealthCommand.defaultTimeoutSeconds

    @Flag(help: "Print nothing; the exit code is the answer.")
    var quiet = false

    public init() {}

    public func run() async throws {
        let target = url ?? Self.defaultURL(environment: ProcessInfo.processInfo.environment)
        guard let parsed = URL(string: target), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw CLIFailure.usage("--url must be an http:// or https:// URL, not \(target)")
        }
        guard timeout > 0 else { throw CLIFailure.usage("--timeout must be at least 1 second") }
        let answer = try await Self.ask(target, timeout: .seconds(Int64(timeout)))
        guard answer.status == 200 else {
            throw CLIFailure(exitCode: CLIFailure.invalidExitCode, message: "\(target) answered \(answer.status): \(answer.body)")
        }
        if !quiet { Console.out(Data("\(answer.body)\n".utf8)) }
    }

    /// The default target: this host, the port the server is configured with by environment.
    static func defaultURL(environment: [String: String]) -> String {
        let port = environment["STOREKEEPER_PORT"].flatMap(Int.init) ?? 8080
        return "http://127.0.0.1:\(port)/health"
    }

    /// One GET; a server that cannot be reached or does not answer in time is a negative finding
    /// (exit 1), like an unhealthy one.
    private static func ask(_ target: String, timeout: TimeAmount) async throws(CLIFailure) -> (status: UInt, body: String) {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let answer: Result<(status: UInt, body: String), any Error>
        do {
            let response = try await client.execute(HTTPClientRequest(url: target), timeout: timeout)
            let body = try await response.body.collect(upTo: maximumAnswerBytes)
            answer = .success((response.status.code, String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)))
        } catch {
            answer = .failure(error)
        }
        try? await client.shutdown()
        switch answer {
        case .success(let value): return value
        case .failure(let error): throw CLIFailure(exitCode: CLIFailure.invalidExitCode, message: "\(target) did not answer: \(error)")
        }
    }
}
