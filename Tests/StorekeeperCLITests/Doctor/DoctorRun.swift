import Foundation
import StorekeeperTestSupport
import Testing

/// One `storekeeper doctor … --format json` run: its exit code and findings.
struct DoctorRun: CustomStringConvertible {
    var exitCode: Int32
    var findings: [[String: Any]]
    var standardError: String
    var text: String

    /// Runs the built executable with `arguments` after `doctor` and `--format json`.
    static func run(_ arguments: [String]) async throws -> DoctorRun {
        let output = try await StorekeeperProcess.run(["doctor", "--format", "json"] + arguments, timeout: 300)
        let findings = (try? output.json())?["findings"] as? [[String: Any]] ?? []
        return DoctorRun(exitCode: output.exitCode, findings: findings, standardError: output.standardError, text: output.text)
    }

    /// The findings with `code`.
    func findings(_ code: String) -> [[String: Any]] { findings.filter { $0["code"] as? String == code } }

    /// Whether a finding has `code` and `severity`, and says what to do (errors and warnings).
    func has(_ code: String, _ severity: String) -> Bool {
        findings(code).contains { finding in
            finding["severity"] as? String == severity
                && (severity == "ok" || severity == "info" || ((finding["todo"] as? String)?.isEmpty == false))
        }
    }

    /// The codes of the findings of `severity`.
    func codes(_ severity: String) -> [String] {
        findings.filter { $0["severity"] as? String == severity }.compactMap { $0["code"] as? String }
    }

    var description: String { "exit \(exitCode): \(text) \(standardError)" }
}

/// A long-running `storekeeper` child (the simulator, a server) whose output goes to a file.
/// It runs under `timeout`, so it ends by itself even if the test process dies first.
final class DoctorBackground: @unchecked Sendable {
    // `@unchecked`: both set once in `init`.
    let process: ChildProcess
    let log: URL

    init(_ arguments: [String], log: URL, deadline: Int = 900) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = try ChildProcess(
            "/usr/bin/timeout", ["\(deadline)", StorekeeperProcess.executable.path] + arguments, output: .file(log.path), errorToOutput: true)
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Waits until the output holds `text` (or the process ended, or 180 s passed).
    func wait(for text: String) async -> Bool {
        for _ in 0..<1_800 {
            if output.contains(text) { return true }
            if !process.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        process.kill()
        process.waitUntilExit()
    }
}

/// Editing a configuration file as a JSON object.
enum DoctorConfiguration {
    static func read(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    /// Writes `object` to `directory/name.json`, mode 0600, and returns its path.
    static func write(_ object: [String: Any], named name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent("\(name).json")
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return url.path
    }

    /// `object` with its first app changed by `edit`.
    static func editingApp(_ object: [String: Any], _ edit: (inout [String: Any]) -> Void) -> [String: Any] {
        var object = object
        var apps = object["apps"] as? [[String: Any]] ?? []
        if !apps.isEmpty { edit(&apps[0]) }
        object["apps"] = apps
        return object
    }

    /// `object` with its first app's `appStoreServerAPI` changed by `edit`.
    static func editingAPI(_ object: [String: Any], _ edit: @escaping (inout [String: Any]) -> Void) -> [String: Any] {
        editingApp(object) { app in
            var api = app["appStoreServerAPI"] as? [String: Any] ?? [:]
            edit(&api)
            app["appStoreServerAPI"] = api
        }
    }
}
