import ArgumentParser
import Foundation

/// `storekeeper bench server [--database-url URL] [--notifications N] [--reads N] [--concurrency C]`
struct BenchServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Run the server in-process on loopback, push signed notifications through it over HTTP, then read statuses.",
        discussion: """
            Starts the server on a free 127.0.0.1 port with a temporary SQLite data directory (or \
            the PostgreSQL database of --database-url), signs N distinct V2 SUBSCRIBED notifications \
            with a fresh test CA that the benchmark app trusts, POSTs them with C concurrent clients, \
            waits until the inbox has processed them all, then performs the status reads \
            (GET /v1/apps/bench/subscriptions/{id}) and as many GET /health (the same-run ceiling \
            for a request). Prints {"database", "notifications", "ingestSeconds", \
            "ingestedPerSecond", "processSeconds", "processedPerSecond", \
            "cpuMillisecondsPerNotification", "reads", "readSeconds", "readsPerSecond", \
            "healthPerSecond", "concurrency", "failures"}: ingest is every POST answered 200 (the \
            inbox written durably); process is from the first POST until the inbox is empty \
            (verified, recorded, events); the CPU figure is the whole process's (server and \
            clients) over that time. Stops by itself, at the latest after \
            --timeout seconds; exits 1 if any request failed or a notification was not processed.
            """
    )

    @OptionGroup var database: BenchDatabaseOptions

    @Option(help: "How many distinct notifications to send (1 to 100000).")
    var notifications: Int = 1000

    @Option(help: "How many status reads to perform (0 to 1000000); as many as notifications by default.")
    var reads: Int?

    @Option(help: "Concurrent HTTP clients (1 to 256).")
    var concurrency: Int = 8

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 600

    func run() async throws {
        guard (1...100_000).contains(notifications) else { throw CLIFailure.usage("--notifications must be between 1 and 100000") }
        let reads = reads ?? notifications
        guard (0...1_000_000).contains(reads) else { throw CLIFailure.usage("--reads must be between 0 and 1000000") }
        guard (1...256).contains(concurrency) else { throw CLIFailure.usage("--concurrency must be between 1 and 256") }
        guard timeout > 0, timeout <= 86_400 else { throw CLIFailure.usage("--timeout must be between 0 and 86400 seconds") }
        let databaseURL = try database.checkedURL()
        let benchmark = ServerBenchmark(
            databaseURL: databaseURL, notifications: notifications, reads: reads, concurrency: concurrency, timeoutSeconds: timeout)
        let report = try await runningBenchmark { try await benchmark.run() }
        try JSONOutput.print(report)
        if report.failures > 0 {
            throw CLIFailure(exitCode: 1, message: "\(report.failures) requests or notifications failed")
        }
    }
}
