import Foundation
import StorekeeperTestSupport
import Testing

@Suite("bench retention times Apple's real-time requests over a seed", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct BenchRetentionCommandTests {
    @Test("over a tiny seed, every real-time request is answered 200 from the retention placement, beside the /health baseline")
    func tinySeed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-retention-test-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let seeded = try await StorekeeperProcess.run(
            [
                "bench", "seed", "--subscriptions", "100", "--slice", "100", "--no-figures", "--data-dir", directory.path, "--end",
                "2026-11-23T00:00:00Z",
            ])
        #expect(seeded.exitCode == 0, "\(seeded.standardError)")

        let run = try await StorekeeperProcess.run(
            ["bench", "retention", "--data-dir", directory.path, "--requests", "60", "--connections", "2", "--warmup", "4", "--skip-figure-build"],
            timeout: 120)
        #expect(run.exitCode == 0, "\(run.standardError.suffix(3000))")
        let report = try run.json()
        #expect(report["connections"] as? Int == 2)
        #expect(report["warmup"] as? Int == 4)
        #expect(report["database"] as? String == "sqlite")
        #expect(["debug", "release"].contains(report["build"] as? String ?? ""))
        #expect(report["figuresMarkedBuilt"] as? [String] == ["Production", "Sandbox"])
        for name in ["retention", "health"] {
            let timing = try #require(report[name] as? [String: Any], "\(name)")
            #expect(timing["requests"] as? Int == 60, "\(name)")
            let p50 = try #require(timing["p50Milliseconds"] as? Double)
            let p95 = try #require(timing["p95Milliseconds"] as? Double)
            let p99 = try #require(timing["p99Milliseconds"] as? Double)
            let max = try #require(timing["maxMilliseconds"] as? Double)
            #expect(p50 > 0 && p50 <= p95 && p95 <= p99 && p99 <= max, "\(name): \(timing)")
            #expect((timing["perSecond"] as? Double ?? 0) > 0, "\(name)")
        }
        // The seed's chains are of three subscriptions: those of the first are offered the
        // switch, the others the message; nothing is refused.
        let answers = try #require(report["answers"] as? [String: Int])
        #expect(Set(answers.keys) == ["alternateProduct", "message"], "\(answers)")
        #expect(answers.values.reduce(0, +) == 60)
        let outcomes = try #require(report["serverOutcomes"] as? [String: Int])
        #expect(outcomes.values.reduce(0, +) == 64, "\(outcomes)")
        #expect(outcomes.keys.allSatisfy { !$0.hasPrefix("refused") }, "\(outcomes)")
        #expect((report["failures"] as? [Any])?.isEmpty == true)
        #expect(run.standardError.contains("retention/realtime: p50"))
    }
}
