import ArgumentParser
import Foundation

/// `storekeeper bench analytics [--subscriptions N] [--days D] [--database-url URL] [--seed S]`
struct BenchAnalyticsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "Seed a database with simulated subscriptions, then time the analytics over it.",
        discussion: """
            Runs the App Store simulator for N customers who all subscribe (prices in four \
            storefronts' currencies) over D days ending 2026-11-23, writes its truth as ledger rows \
            (every transaction and the renewal facts of each chain) into a temporary SQLite database \
            or the PostgreSQL database of --database-url, then times: reading the app's ledger, \
            building the snapshot index, a year of daily mrr and activeSubscriptions from it, a \
            year of daily revenue and churn, monthly cohorts over the whole run, \
            re-indexing one chain after a late fact, and replaying one day from every fact (the \
            analytics before the index; × 365 for a year). Five days are computed both ways and \
            must agree. Prints one JSON object; exits 1 on a disagreement.
            """
    )

    @Option(help: "How many subscribing customers (1 to 1000000).")
    var subscriptions: Int = 100_000

    @Option(help: "How many simulated days, ending 2026-11-23 (366 to 3650).")
    var days: Double = 730

    @OptionGroup var database: BenchDatabaseOptions

    @Option(help: "The simulation's seed.")
    var seed: UInt64 = 1

    func run() async throws {
        guard (1...1_000_000).contains(subscriptions) else { throw CLIFailure.usage("--subscriptions must be between 1 and 1000000") }
        guard days >= 366, days <= 3_650 else { throw CLIFailure.usage("--days must be between 366 and 3650") }
        let databaseURL = try database.checkedURL()
        let report = try await runningBenchmark {
            try await AnalyticsBenchmark(subscriptions: subscriptions, days: days, databaseURL: databaseURL, seed: seed).run()
        }
        try JSONOutput.print(report)
    }
}
