import Foundation
import StorekeeperTestSupport
import Testing

/// The dashboard in a real browser: `Scripts/dashboard-browser-test.py` drives Debian's chromium
/// (through chromium-driver and selenium) against `storekeeper demo`, and leaves a screenshot of
/// every page under `.build/dashboard-screenshots`.
///
/// Runs when `$STOREKEEPER_BROWSER_PYTHON` names a Python with selenium and chromium is
/// installed; `STOREKEEPER_REQUIRE_BROWSER=1` (CI sets it) makes a missing browser a failure.
@Suite("Dashboard in a browser", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct DashboardBrowserTests {
    static let python = ProcessInfo.processInfo.environment["STOREKEEPER_BROWSER_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = ProcessInfo.processInfo.environment["STOREKEEPER_REQUIRE_BROWSER"] == "1"
    static let hasChromium =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")

    @Test(
        "sign in, every page with data, overview = metrics API, search, grant + audit, viewer refused, CSRF refused, accessibility, screenshots",
        .enabled(if: required || (python != nil && hasChromium), "set STOREKEEPER_BROWSER_PYTHON (Scripts/browser-python.sh) and install chromium"),
        .timeLimit(.minutes(10)))
    func dashboardInABrowser() async throws {
        let python = try #require(Self.python, "STOREKEEPER_REQUIRE_BROWSER=1 but STOREKEEPER_BROWSER_PYTHON is not set")
        #expect(Self.hasChromium, "chromium and chromedriver must be installed (apt-get install chromium chromium-driver)")
        let root = InteropPython.repositoryRoot
        let shots = root.appendingPathComponent(".build/dashboard-screenshots")
        try? FileManager.default.removeItem(at: shots)
        let finished = try await ChildProcess.run(
            python, [root.appendingPathComponent("Scripts/dashboard-browser-test.py").path, StorekeeperProcess.executable.path, shots.path],
            errorToOutput: true)
        let text = finished.outputText
        let summary = text.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("browser:") || $0.contains("Error") }
        #expect(finished.status == 0, "\(summary.joined(separator: "\n"))\n\(text.suffix(2000))")
        let screenshots = (try? FileManager.default.contentsOfDirectory(atPath: shots.path)) ?? []
        #expect(screenshots.filter { $0.hasSuffix(".png") }.count >= 15)
    }
}
