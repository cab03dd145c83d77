import ArgumentParser
import Foundation

/// `storekeeper bench retention [--data-dir DIR] [--database-url URL] [--requests N] [--connections C]`
struct BenchRetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Time Apple's Retention Messaging real-time requests over a database `storekeeper bench seed` filled.",
        discussion: """
            Reads --data-dir's seed-manifest.json, generates a test certificate authority and \
            makes the served app trust its root (retention-root.der), starts `storekeeper serve` \
            as a child process on a free loopback port (its log in retention-server.log) and \
            saves an offerings document with a retention placement: a message by default, a \
            switch to the catalog's second subscription for those who cancel the first. Then \
            signs --warmup plus --requests real-time requests (one a chain of the manifest's \
            truth sample, or of its first --chains, in turn; each with a fresh requestIdentifier, the current date and the \
            app's environment and Apple id), sends the warm-up ones untimed, times as many \
            GET /health as a baseline, and times the requests \
            (POST /v1/apps/{app}/retention/realtime), all over --connections keep-alive \
            connections, one request in flight on each. Each request must be answered within \
            5 minutes of its signing: keep --requests to what the server answers in that time. \
            Prints one JSON object (p50, p95, p99 and max milliseconds, requests a second, the \
            answers by kind, the /health baseline) and a summary on standard error; exits 1 when \
            any request was refused or failed. A seed made with --no-figures has the server \
            build its figures in the background during the run: --skip-figure-build records \
            them as built first (its analytics then read none; for a scratch seed only).
            """
    )

    @Option(help: "The directory `storekeeper bench seed` filled.")
    var dataDir: String = "storekeeper-scale"

    @Option(help: "postgres://user:password@host:port/database; the manifest's database when absent.")
    var databaseURL: String?

    @Option(help: "Real-time requests timed (1 to 100000).")
    var requests: Int = 2_000

    @Option(help: "Keep-alive connections, one request in flight on each (1 to 64).")
    var connections: Int = 1

    @Option(help: "Requests sent untimed first (0 to 1000).")
    var warmup: Int = 20

    @Option(help: "Cycle through only this many of the manifest's sampled chains (all by default), so each is asked again.")
    var chains: Int?

    @Flag(help: "Record the seed's missing figures as built, so the server does not build them while requests are timed.")
    var skipFigureBuild = false

    @Option(help: "How long the server may take to start, and one answer to come, in seconds.")
    var patience: Double = 1_800

    func run() async throws {
        guard (1...100_000).contains(requests) else { throw CLIFailure.usage("--requests must be between 1 and 100000") }
        guard (1...64).contains(connections) else { throw CLIFailure.usage("--connections must be between 1 and 64") }
        guard (0...1_000).contains(warmup) else { throw CLIFailure.usage("--warmup must be between 0 and 1000") }
        if let chains, chains < 1 { throw CLIFailure.usage("--chains must be at least 1") }
        guard patience >= 1 else { throw CLIFailure.usage("--patience must be at least 1 second") }
        let benchmark = RetentionBenchmark(
            directory: URL(fileURLWithPath: dataDir), databaseURL: try BenchDatabaseOptions.check(databaseURL), requests: requests,
            connections: connections, warmup: warmup, chainLimit: chains, skipsFigureBuild: skipFigureBuild, patienceSeconds: patience,
            progress: { Console.err(Data(($0 + "\n").utf8)) })
        let report = try await runningBenchmark { try await benchmark.run() }
        try JSONOutput.print(report)
        Console.err(Data(report.summary.utf8))
        if !report.failures.isEmpty {
            throw CLIFailure(exitCode: 1, message: "\(report.failures.count) kinds of request were refused or failed")
        }
    }
}

extension RetentionBenchmark.Report {
    /// A few lines for people: the real-time requests' times beside /health's, the answers.
    var summary: String {
        func number(_ value: Double) -> String { String(format: "%.2f", value) }
        func line(_ name: String, _ timing: RetentionBenchmark.Timing) -> String {
            "\(name): p50 \(number(timing.p50Milliseconds)) ms, p95 \(number(timing.p95Milliseconds)) ms, "
                + "p99 \(number(timing.p99Milliseconds)) ms, max \(number(timing.maxMilliseconds)) ms; "
                + "\(timing.requests) in \(number(timing.seconds)) s (\(Int(timing.perSecond.rounded())) a second)"
        }
        let figures = figuresReady.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var lines = [
            "\(subscriptions) subscriptions, \(chains) chains, \(ledgerRows) ledger rows (\(database), \(build) build); "
                + "figures ready: \(figures)" + (figuresMarkedBuilt.isEmpty ? "" : " (marked built: \(figuresMarkedBuilt.joined(separator: ", ")))"),
            "\(connections) connection(s), \(warmup) warm-up requests, \(chainsAsked) chains asked; server CPU before timing "
                + "\(number(serverIdleCPUPercent)) %; load average \(loadAverageBefore) before, \(loadAverageAfter) after",
            line("retention/realtime", retention),
            line("/health (baseline)", health),
            "answers: " + answers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
            "server RSS after: \(number(memoryAfter.residentMegabytes)) MB (peak \(number(memoryAfter.peakMegabytes)))",
        ]
        lines.append(failures.isEmpty ? "failures: none" : "failures:\n  " + failures.joined(separator: "\n  "))
        return lines.joined(separator: "\n") + "\n"
    }
}
