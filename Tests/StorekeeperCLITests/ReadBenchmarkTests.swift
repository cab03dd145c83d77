import Foundation
import StorekeeperTestSupport
import Testing

@Suite("bench seed writes the figures, bench read times every read route", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct ReadBenchmarkTests {
    @Test("a small seed is served from its figures at once, and every read route answers 200")
    func seedThenRead() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-read-test-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let seeded = try await StorekeeperProcess.run(
            ["bench", "seed", "--subscriptions", "200", "--slice", "100", "--data-dir", directory.path, "--end", "2026-11-23T00:00:00Z"])
        #expect(seeded.exitCode == 0, "\(seeded.standardError)")
        let seed = try seeded.json()
        #expect((seed["figureUpdates"] as? Int ?? 0) >= (seed["chains"] as? Int ?? 1))
        #expect(seed["figureRetries"] as? Int == 0)
        #expect((seed["enrolments"] as? Int ?? 0) > 0)

        let read = try await StorekeeperProcess.run(
            ["bench", "read", "--data-dir", directory.path, "--samples", "2", "--two-user-seconds", "1"], timeout: 300)
        #expect(read.exitCode == 0, "\(read.standardError.suffix(3000))")
        let report = try read.json()
        #expect(report["figuresReady"] as? [String: Bool] == ["Production": true, "Sandbox": true])
        let routes = try #require(report["routes"] as? [[String: Any]])
        // The snapshot, 19 metrics, 8 grouped series, cohorts, 5 dashboard pages, the experiment.
        #expect(routes.count == 35)
        for route in routes {
            #expect(route["status"] as? Int == 200, "\(route["name"] ?? "") \(route["failure"] ?? "")")
            #expect(route["samples"] as? Int == 2)
            #expect((route["bytes"] as? Int ?? 0) > 0)
        }
        let users = try #require(report["twoUsers"] as? [[String: Any]])
        #expect(users.count == 2)
        #expect(users.allSatisfy { ($0["rounds"] as? Int ?? 0) >= 1 })
        #expect(((report["memoryAfterTwoUsers"] as? [String: Any])?["peakMegabytes"] as? Double ?? 0) > 0)
        #expect((report["failures"] as? [Any])?.isEmpty == true)
    }
}
