import ArgumentParser

/// `storekeeper bench`: throughput of Storekeeper's hot paths on this machine.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure how fast Storekeeper verifies, decodes and computes on this machine.",
        subcommands: [
            BenchJWSCommand.self, BenchReceiptCommand.self, BenchEngineCommand.self, BenchServerCommand.self, BenchAnalyticsCommand.self,
            BenchSeedCommand.self, BenchScaleCommand.self,
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
