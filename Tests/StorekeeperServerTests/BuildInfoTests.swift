import Foundation
import StorekeeperApps
import StorekeeperTestSupport
import Testing

/// Which build runs, as `/health` and `storekeeper --version` tell it, and `storekeeper health`,
/// the probe the container image and the deploy files use instead of curl.
@Suite("Build info and the health probe")
struct BuildInfoTests {
    @Test("/health names the build: version, commit and build date, as --version prints them")
    func healthNamesTheBuild() async throws {
        try await ServerHarness.run(.sqlite) { _, client in
            let health = try await client.call(.get, "/health")
            #expect(health.status == 200)
            #expect(health.json["version"] as? String == BuildInfo.current.version)
            #expect(health.json["commit"] as? String == BuildInfo.current.commit)
            #expect(health.json["built"] as? String == BuildInfo.current.built)
        }
        let version = try await ChildProcess.run(ServerProcess.binary.path, ["--version"], timeout: 60)
        #expect(version.status == 0)
        #expect(version.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == BuildInfo.current.description)
        // An unstamped (test) build says so rather than pretending to be a release.
        #expect(BuildInfo.current.version.hasPrefix(BuildInfo.baseVersion))
    }

    @Test("storekeeper health: 0 with the answer from a healthy server, 1 when nothing answers, 2 for a bad URL")
    func healthProbe() async throws {
        try await ConnectionLimitsTests.live(limits: ConnectionLimits()) { port in
            let healthy = try await ChildProcess.run(
                ServerProcess.binary.path, ["health", "--url", "http://127.0.0.1:\(port)/health"], timeout: 60)
            #expect(healthy.status == 0, "\(healthy.errorText)")
            let answer = try JSONSerialization.jsonObject(with: healthy.output) as? [String: Any]
            #expect(answer?["status"] as? String == "ok")
            #expect(answer?["version"] as? String == BuildInfo.current.version)
            let fromEnvironment = try await ChildProcess.run(
                ServerProcess.binary.path, ["health", "--quiet"], environment: ["STOREKEEPER_PORT": "\(port)"], timeout: 60)
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.errorText)")
            #expect(fromEnvironment.output.isEmpty)
        }
        let refusing = LoopbackPort.Refusing()
        let down = try await ChildProcess.run(
            ServerProcess.binary.path, ["health", "--url", "http://127.0.0.1:\(refusing.port)/health", "--timeout", "10"], timeout: 60)
        #expect(down.status == 1)
        #expect(down.errorText.contains("did not answer"), "\(down.errorText)")
        let unusable = try await ChildProcess.run(ServerProcess.binary.path, ["health", "--url", "ftp://127.0.0.1/health"], timeout: 60)
        #expect(unusable.status == 2)
    }
}
