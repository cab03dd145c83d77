import ArgumentParser
import Foundation

/// `storekeeper bench read [--data-dir DIR] [--database-url URL] [--samples N] [--two-user-seconds S]`
struct BenchReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Time every read route (metrics, cohorts, dashboard, experiment results) over a database `storekeeper bench seed` filled.",
        discussion: """
            Reads --data-dir's seed-manifest.json, says whether the seeded figures are complete \
            with the served app's settings, adds two dashboard admins to the database, starts \
            `storekeeper serve` as a child process on a free loopback port (its log in \
            read-server.log) and signs in to the dashboard as a browser does. Then, one route \
            after another, times the first call after the start (cold) and --samples more: \
            GET /v1/apps/{app}/metrics; a year of daily values (ending at the seed's end) of \
            every metric, and of mrr, revenue, churnedSubscriptions and activeSubscriptions by \
            product and by storefront; two years of monthly cohorts; the dashboard's Overview, \
            Charts (mrr), its CSV, Cohorts and a customer's page; the seed's experiment's \
            results (admin key). Then two dashboard users load Overview, Charts and Cohorts in \
            turn at once for --two-user-seconds. Reads the server's VmRSS and VmHWM idle, after \
            the single user and after the two. Prints one JSON object (per route: cold, p50, p95 \
            and max milliseconds, body bytes, status) and a summary on standard error; exits 1 \
            when any answer was not 200 (listed under "failures"); a failing route does not \
            stop the run.
            """
    )

    @Option(help: "The directory `storekeeper bench seed` filled.")
    var dataDir: String = "storekeeper-scale"

    @Option(help: "postgres://user:password@host:port/database; the manifest's database when absent.")
    var databaseURL: String?

    @Option(help: "Calls timed per route after its cold call (1 to 1000).")
    var samples: Int = 20

    @Option(help: "How long the two dashboard users load pages (1 to 3600 seconds).")
    var twoUserSeconds: Double = 20

    @Option(help: "A route's samples stop once they took this many seconds together.")
    var routeSeconds: Double = 120

    @Option(help: "How long the server may take to start, and one answer to come, in seconds.")
    var patience: Double = 1_800

    func run() async throws {
        guard (1...1_000).contains(samples) else { throw CLIFailure.usage("--samples must be between 1 and 1000") }
        guard twoUserSeconds >= 1, twoUserSeconds <= 3_600 else { throw CLIFailure.usage("--two-user-seconds must be between 1 and 3600") }
        guard routeSeconds > 0, patience >= 1 else { throw CLIFailure.usage("--route-seconds and --patience must be positive") }
        let benchmark = ReadBenchmark(
            directory: URL(fileURLWithPath: dataDir), databaseURL: try BenchDatabaseOptions.check(databaseURL), samples: samples,
            twoUserSeconds: twoUserSeconds, routeSeconds: routeSeconds, patienceSeconds: patience,
            progress: { Console.err(Data(($0 + "\n").utf8)) })
        let report = try await runningBenchmark { try await benchmark.run() }
        try JSONOutput.print(report)
        Console.err(Data(report.summary.utf8))
        if !report.failures.isEmpty {
            throw CLIFailure(exitCode: 1, message: "\(report.failures.count) routes or pages answered other than 200")
        }
    }
}

extension ReadBenchmark.Report {
    /// A table for people: each route's status and times, the two users' pages, the memory.
    var summary: String {
        func cell(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        var lines = [
            "\(subscriptions) subscriptions, \(ledgerRows) ledger rows (\(database)); figures ready: "
                + figuresReady.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
            cell("route", 44) + cell("status", 7) + cell("cold ms", 10) + cell("p50 ms", 10) + cell("p95 ms", 10) + cell("max ms", 10) + "bytes",
        ]
        for route in routes {
            lines.append(
                cell(route.name, 44) + cell("\(route.status)", 7) + cell(number(route.coldMilliseconds), 10) + cell(number(route.p50Milliseconds), 10)
                    + cell(number(route.p95Milliseconds), 10) + cell(number(route.maxMilliseconds), 10) + "\(route.bytes)")
        }
        lines.append("two dashboard users for \(Int(twoUserSeconds)) s:")
        for user in twoUsers {
            let pages = user.pages.map { "\($0.page) p50 \(number($0.p50Milliseconds)) p95 \(number($0.p95Milliseconds)) ms (\($0.requests))" }
            lines.append("  \(user.user): \(user.rounds) rounds; " + (user.error ?? pages.joined(separator: "; ")))
        }
        func memory(_ value: ReadBenchmark.Memory) -> String { "\(number(value.residentMegabytes)) MB (peak \(number(value.peakMegabytes)))" }
        lines.append(
            "server RSS: idle \(memory(memoryIdle)), after one user \(memory(memoryAfterSingleUser)), after two users \(memory(memoryAfterTwoUsers))")
        lines += skipped.map { "skipped: \($0)" }
        lines.append(failures.isEmpty ? "failures: none" : "failures:\n  " + failures.joined(separator: "\n  "))
        return lines.joined(separator: "\n") + "\n"
    }
}
