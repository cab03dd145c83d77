import Foundation
import StorekeeperTestSupport
import Testing

/// `storekeeper doctor` on configurations alone (no app talks to Apple): what `serve` would
/// refuse is a finding, not a usage error, and the rules of its own are typed.
@Suite("storekeeper doctor: the configuration's own rules")
struct DoctorConfigurationTests {
    @Test("Production without appAppleId: serve's refusal and the typed finding, exit 1; apps without credentials are information")
    func productionWithoutAppAppleId() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration: [String: Any] = [
            "dataDirectory": directory.appendingPathComponent("data").path,
            "apps": [["id": "shop", "bundleId": "com.example.shop", "environments": ["Production"]]],
        ]
        let run = try await DoctorRun.run(["--config", try DoctorConfiguration.write(configuration, named: "production", in: directory)])
        #expect(run.exitCode == 1, "\(run)")
        #expect(run.has("configuration_invalid", "error") && run.has("production_without_app_apple_id", "error"), "\(run)")
        #expect(run.has("no_api_credentials", "info"), "\(run)")
    }

    @Test("the text format lists errors first, each with what to do, and a summary line")
    func textFormat() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration: [String: Any] = [
            "host": "0.0.0.0", "dataDirectory": directory.appendingPathComponent("data").path,
            "apps": [
                ["id": "one", "bundleId": "com.example.same", "environments": ["Sandbox"]],
                ["id": "two", "bundleId": "com.example.same", "environments": ["Sandbox"]],
            ],
        ]
        let path = try DoctorConfiguration.write(configuration, named: "text", in: directory)
        let output = try await StorekeeperProcess.run(["doctor", "--config", path])
        #expect(output.exitCode == 1)
        let lines = output.text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ERROR   [duplicate_bundle_id]") == true, "\(output.text)")
        #expect(lines.dropFirst().first?.contains("what to do: ") == true, "\(output.text)")
        #expect(lines.contains { $0.hasPrefix("WARNING [plain_http]") }, "\(output.text)")
        #expect(lines.last == "1 error, 1 warning, 2 info, 0 ok", "\(output.text)")
    }
}
