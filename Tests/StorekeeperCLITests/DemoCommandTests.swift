import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Testing

@Suite("storekeeper demo", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct DemoCommandTests {
    static func matched(_ text: String) -> (matched: Int, total: Int)? {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("matched ") }) else { return nil }
        let numbers = line.dropFirst("matched ".count).split(separator: " ")[0].split(separator: "/").compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    @Test("--check matches every subscription although V1 and V2 notifications are lost and duplicated, and reports Apple API calls")
    func checkMatchesEverySubscription() async throws {
        let output = try await StorekeeperProcess.run(
            [
                "demo", "--check", "--customers", "60", "--days", "100", "--drop-rate", "0.3", "--duplicate-rate", "0.2", "--seed", "5",
                "--step-hours", "3", "--quiet", "--v1",
            ], timeout: 600)
        #expect(output.exitCode == 0, "\(output.text)\n\(output.standardError)")
        let result = try #require(Self.matched(output.text), "\(output.text)")
        #expect(result.total >= 30)
        #expect(result.matched == result.total)
        #expect(output.text.contains("Apple API calls"))
        #expect(output.text.contains("lost for good"))
    }

    @Test("without reconciliation, lost notifications leave the server behind and --check fails")
    func checkFailsWithoutReconciliation() async throws {
        let output = try await StorekeeperProcess.run(
            [
                "demo", "--check", "--customers", "30", "--days", "75", "--drop-rate", "1", "--duplicate-rate", "0", "--seed", "2",
                "--step-hours", "6", "--quiet", "--without-reconciliation",
            ], timeout: 600)
        #expect(output.exitCode == 1, "\(output.text)\n\(output.standardError)")
        let result = try #require(Self.matched(output.text), "\(output.text)")
        #expect(result.matched < result.total)
        #expect(output.text.contains("mismatch"))
    }

    @Test(
        "on PostgreSQL (--database-url) the check matches too, and a database that already has Storekeeper's tables is refused",
        .enabled(if: !(ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_URL"] ?? "").isEmpty))
    func checkOnPostgres() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["STOREKEEPER_TEST_POSTGRES_URL"])
        var logger = Logger(label: "test.demo")
        logger.logLevel = .warning
        try await SQLStore.withPostgresDatabaseForTests(baseURL: base, prefix: "sk_demo_", logger: logger) { url in
            let arguments = ["demo", "--check", "--customers", "30", "--days", "60", "--step-hours", "6", "--quiet", "--database-url", url]
            let output = try await StorekeeperProcess.run(arguments, timeout: 600)
            #expect(output.exitCode == 0, "\(output.text)\n\(output.standardError)")
            let result = try #require(Self.matched(output.text), "\(output.text)")
            #expect(result.total >= 10 && result.matched == result.total)
            let again = try await StorekeeperProcess.run(arguments, timeout: 120)
            #expect(again.exitCode == 2 && again.standardError.contains("empty database"), "\(again.standardError)")
        }
    }

    @Test(
        "bad knobs are usage errors",
        arguments: [
            ["--drop-rate", "1.5"], ["--duplicate-rate", "-0.1"], ["--customers", "0"], ["--days", "0"], ["--step-hours", "0"],
            ["--revenuecat-webhook", "ftp://example.com/x"],
        ])
    func badKnobsAreUsageErrors(_ arguments: [String]) async throws {
        let output = try await StorekeeperProcess.run(["demo", "--check"] + arguments)
        #expect(output.exitCode == 2, "\(output.standardError)")
        #expect(!output.standardError.isEmpty)
    }
}

@Suite("storekeeper output into a closed pipe")
struct ClosedPipeTests {
    @Test("a reader that stops early (| head -1) ends the output quietly, not the program")
    func closedPipeDoesNotCrash() async throws {
        let command =
            "'\(StorekeeperProcess.executable.path)' demo --check --customers 5 --days 5 --step-hours 6 | head -1 > /dev/null; exit ${PIPESTATUS[0]}"
        let finished = try await ChildProcess.run("/bin/bash", ["-c", command])
        let text = finished.errorText
        #expect(finished.status == 0, "\(text.prefix(2_000))")
        #expect(!text.contains("Fatal error"))
    }
}
