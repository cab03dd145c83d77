import Foundation
import Testing

/// `storekeeper bench analytics`: a small population seeded and measured, the index checked
/// against the replay; bad options are usage errors.
@Suite("Bench: analytics over a seeded database")
struct AnalyticsBenchmarkTests {
    @Test("a small population is seeded, indexed and agrees with the replay; bad options are usage errors")
    func smallPopulation() async throws {
        let run = try await StorekeeperProcess.run(["bench", "analytics", "--subscriptions", "150", "--days", "400"])
        #expect(run.exitCode == 0, "\(run.standardError)")
        let report = try run.json()
        #expect(report["database"] as? String == "sqlite")
        #expect(report["checkedDays"] as? Int == 5)
        #expect((report["ledgerRows"] as? Int ?? 0) > 150)
        #expect((report["chains"] as? Int ?? 0) >= 150)
        #expect((report["activeSubscriptionsAtEnd"] as? Int ?? 0) > 0)
        #expect(report["yearOfDailyMRRSeconds"] is Double && report["replayYearEstimateSeconds"] is Double)

        for bad in [["--subscriptions", "0"], ["--days", "30"], ["--database-url", "mysql://x"]] {
            let refused = try await StorekeeperProcess.run(["bench", "analytics"] + bad)
            #expect(refused.exitCode == 2, "\(bad): \(refused.standardError)")
        }
    }
}
