import ArgumentParser
import Foundation

/// `storekeeper bench scale [--data-dir DIR] [--reads N] [--concurrency C] [--no-analytics]`
struct BenchScaleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Measure the server over a database `storekeeper bench seed` filled.",
        discussion: """
            Reads --data-dir's seed-manifest.json, then: counts the ledger with sqlite3 or psql \
            (a baseline), times `storekeeper migrate` on the database, starts `storekeeper serve` \
            as a child process on a free loopback port, reads its resident memory from \
            /proc/<pid>/status idle and during the load, sends --reads status reads \
            (GET /v1/apps/scale/subscriptions/{id}, chains of every slice in random order) and \
            as many GET /health (the same-run baseline) with --concurrency clients and reports \
            p50/p99 latencies, compares the sampled chains' states with the simulator's truth \
            (skipping those whose expiry or grace end fell since the seed's end), asks twice for \
            a year of daily mrr (the first request builds the server's snapshot index), stops \
            the server, and times the hourly reconciliation planning job (planLooks, leased and \
            run through the scheduler in this process with an App Store that answers nothing) \
            after an hour in which one chain in 730 got a renewal fact, with a plan recorded as \
            done before it (--first-plan times a run over every chain there instead, on a \
            database never planned). Prints one JSON object; exits 1 if a read failed or a state \
            differs from the truth.
            """
    )

    @Option(help: "The directory `storekeeper bench seed` filled.")
    var dataDir: String = "storekeeper-scale"

    @OptionGroup var scale: ScaleOptions

    func run() async throws {
        try await runningBenchmark { try await scale.measure(directory: URL(fileURLWithPath: dataDir)) }
    }
}

/// The measuring step's options, shared by `bench seed --measure` and `bench scale`.
struct ScaleOptions: ParsableArguments {
    @Option(help: "Status reads (and as many GET /health) to send (1 to 1000000).")
    var reads: Int = 20_000

    @Option(help: "Concurrent HTTP clients (1 to 256).")
    var concurrency: Int = 16

    @Flag(help: "Skip the year of daily analytics (its first request reads the whole ledger into the server's memory).")
    var noAnalytics = false

    @Flag(help: "Time a planning run over every chain first, on a database never planned (about 1 ms a chain).")
    var firstPlan = false

    /// Runs the measuring step on `directory` and prints its report.
    func measure(directory: URL) async throws {
        guard (1...1_000_000).contains(reads) else { throw CLIFailure.usage("--reads must be between 1 and 1000000") }
        guard (1...256).contains(concurrency) else { throw CLIFailure.usage("--concurrency must be between 1 and 256") }
        let report = try await ScaleBenchmark(
            directory: directory, reads: reads, concurrency: concurrency, analytics: !noAnalytics, firstPlan: firstPlan
        ).run()
        try JSONOutput.print(report)
        if report.statusReads.failures > 0 || report.health.failures > 0 || report.matched != report.checked {
            throw CLIFailure(
                exitCode: 1,
                message: "\(report.statusReads.failures + report.health.failures) reads failed, "
                    + "\(report.checked - report.matched) of \(report.checked) states differ from the truth")
        }
    }
}
