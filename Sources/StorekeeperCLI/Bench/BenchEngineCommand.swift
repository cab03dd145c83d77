import ArgumentParser
import SubscriptionEngine

/// `storekeeper bench engine [--threads N]`
struct BenchEngineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Compute a customer's full state repeatedly for at least 2 seconds and print the rate.",
        discussion: """
            The history is realistic: three years of monthly renewals with a trial, an upgrade and \
            a refund, a lapsed second group, a non-consumable, non-renewing passes and \
            consumables. Each operation computes every subscription's state, the entitlements, \
            eligibility per group and the next look, at a different instant.
            """
    )

    @OptionGroup var bench: BenchOptions

    func run() async throws {
        let benchmark = EngineBenchmark()
        let runner = try bench.runner()
        let report = await runner.run(count: 1024) { iteration in
            benchmark.run(iteration: iteration) > 0
        }
        try JSONOutput.print(EngineReport(report: report, factsPerHistory: benchmark.factCount))
    }

    /// The runner's report plus the size of the history each operation reads.
    struct EngineReport: Encodable {
        var report: BenchRunner.Report
        var factsPerHistory: Int

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(factsPerHistory, forKey: .factsPerHistory)
        }

        enum CodingKeys: String, CodingKey {
            case factsPerHistory
        }
    }
}
