import Foundation
import StorekeeperTestSupport
import Testing

@Suite("bench seed and bench scale", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct ScaleBenchmarkTests {
    @Test("a small seeded database is served with the simulator's states, and every step is measured")
    func seedThenMeasure() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-scale-test-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let seeded = try await StorekeeperProcess.run(
            ["bench", "seed", "--subscriptions", "200", "--slice", "100", "--data-dir", directory.path, "--end", "2026-11-23T00:00:00Z"])
        #expect(seeded.exitCode == 0, "\(seeded.standardError)")
        let seed = try seeded.json()
        #expect(seed["slices"] as? Int == 2)
        let rows = try #require(seed["ledgerRows"] as? Int)
        let chains = try #require(seed["chains"] as? Int)
        #expect(chains >= 200)
        #expect(rows > chains)

        // Seeding the same directory again is refused rather than mixed in.
        let again = try await StorekeeperProcess.run(["bench", "seed", "--subscriptions", "200", "--slice", "100", "--data-dir", directory.path])
        #expect(again.exitCode != 0)

        let measured = try await StorekeeperProcess.run(
            ["bench", "scale", "--data-dir", directory.path, "--reads", "300", "--concurrency", "4", "--first-plan"], timeout: 300)
        #expect(measured.exitCode == 0, "\(measured.standardError) \(measured.text.prefix(2000))")
        let report = try measured.json()
        #expect(report["countedLedgerRows"] as? Int == rows)
        let checked = try #require(report["checked"] as? Int)
        #expect(checked > 100)
        #expect(report["matched"] as? Int == checked)
        #expect((report["mismatches"] as? [Any])?.isEmpty == true)
        let reads = try #require(report["statusReads"] as? [String: Any])
        #expect(reads["requests"] as? Int == 300)
        #expect(reads["failures"] as? Int == 0)
        #expect((reads["p99Milliseconds"] as? Double ?? 0) > 0)
        #expect((report["rssUnderReadsMegabytes"] as? Double ?? 0) > 0)
        #expect(report["analyticsPoints"] as? Int == 365)
        // The first plan looks at every chain; the hourly one at the chains given a fact in the
        // hour before it (one in 730, so one here).
        #expect((report["planFirstEverSeconds"] as? Double ?? 0) > 0)
        #expect(report["planHourChains"] as? Int == (chains + 729) / 730)
        #expect((report["planHourlySeconds"] as? Double ?? 0) > 0)
        #expect((report["looksPending"] as? Int ?? 0) > 0)
    }
}
