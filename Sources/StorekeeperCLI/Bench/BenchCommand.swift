import ArgumentParser

/// `storekeeper bench`: throughput of Storekeeper's hot paths on this machine.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure how fast Storekeeper verifies, decodes and computes on this machine.",
        subcommands: [
            BenchJWSCommand.self, BenchReceiptCommand.self, BenchEngineCommand.self, BenchServerCommand.self, BenchAnalyticsCommand.self,
            BenchSeedCommand.self, BenchScaleCommand.self, BenchReadCommand.self, BenchRetentionCommand.self,
        ]
    )
}

/// Options every benchmark shares.
struct BenchOptions: ParsableArguments {
    @Option(help: "Concurrent workers.")
    var threads: Int = 1

    @Option(help: "Run for at least this many seconds.")
    var seconds: Double = 2

    func runner() throws(CLIFailure) -> BenchRunner {
        guard threads >= 1, threads <= 256 else { throw .usage("--threads must be between 1 and 256") }
        guard seconds > 0, seconds <= 3600 else { throw .usage("--seconds must be between 0 and 3600") }
        return BenchRunner(threads: threads, minimumSeconds: seconds)
    }
}

/// The database of the benchmarks that write one: PostgreSQL when given, a temporary SQLite
/// database otherwise.
struct BenchDatabaseOptions: ParsableArguments {
    @Option(help: "postgres://user:password@host:port/database; a temporary SQLite database when absent.")
    var databaseURL: String?

    /// `--database-url`, refused unless it is a PostgreSQL URL.
    func checkedURL() throws(CLIFailure) -> String? {
        try Self.check(databaseURL)
    }

    /// `url` (a `--database-url`), refused unless it is a PostgreSQL URL.
    static func check(_ url: String?) throws(CLIFailure) -> String? {
        if let url, !url.hasPrefix("postgres://"), !url.hasPrefix("postgresql://") {
            throw .usage("--database-url must be a postgres:// URL")
        }
        return url
    }
}

/// Runs a benchmark: its own failures pass on as they are, any other error exits 1 as "the
/// benchmark failed".
func runningBenchmark<T>(_ benchmark: () async throws -> T) async throws(CLIFailure) -> T {
    do {
        return try await benchmark()
    } catch let failure as CLIFailure {
        throw failure
    } catch {
        throw CLIFailure(exitCode: 1, message: "the benchmark failed: \(error)")
    }
}
