import AppStoreSimulator
import ArgumentParser
import Foundation

/// `storekeeper demo`: the whole system on one machine. Starts the Storekeeper server on SQLite
/// and the App Store simulator, wires them together (notifications, App Store Server API,
/// purchases reported by the simulated devices), runs a population through compressed time
/// while printing progress, then keeps both running in real time with the addresses printed.
///
/// With `--check` it stops at the end instead and compares, for every subscription, the server's
/// state with the simulator's truth: `matched N/N subscriptions`, exit 0 only on a full match.
public struct DemoCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the server against the App Store simulator (a population in compressed time).",
        discussion: """
            Without --check: 200 customers over 120 simulated days, then the server keeps running \
            (Ctrl-C stops it). With --check: 1,000 customers over 365 days with 20% of notifications \
            lost and 10% duplicated, then a comparison with the simulator's truth.
            """
    )

    @Flag(help: "Run to the end, compare every subscription with the simulator's truth, exit 0 only on a full match.")
    var check = false

    @Option(help: "How many customers (default 200, or 1000 with --check).")
    var customers: Int?

    @Option(help: "How many simulated days (default 120, or 365 with --check).")
    var days: Double?

    @Option(name: .customLong("drop-rate"), help: "Share of notifications lost for good, 0…1 (default 0.2).")
    var dropRate: Double = 0.2

    @Option(name: .customLong("duplicate-rate"), help: "Share of notifications delivered twice, 0…1 (default 0.1).")
    var duplicateRate: Double = 0.1

    @Option(help: "The seed of every random choice (same seed, same run).")
    var seed: UInt64 = 1

    @Option(
        name: .customLong("data-dir"),
        help:
            "Where the server keeps its SQLite database (default: a new temporary folder; commits are not flushed one by one: a demo's data is not for keeping)."
    )
    var dataDirectory: String?

    @Option(
        help:
            "Keep the server's data in this empty PostgreSQL database instead (postgres://user:password@host:port/database): the demo on the production database."
    )
    var databaseURL: String?

    @Option(help: "The server's TCP port (default 8080; 0 picks a free one; --check always picks one).")
    var port: Int = 8080

    @Option(
        name: .customLong("step-hours"),
        help:
            "The loop's step in simulated hours (default 1): what falls due within a step is handled together at its end; steps in which nothing falls due are skipped."
    )
    var stepHours: Double = 1

    @Option(name: .customLong("live-speed"), help: "After the compressed run, simulated seconds per real second (default 1: real time).")
    var liveSpeed: Double = 1

    @Flag(name: .customLong("v1"), help: "Also deliver Version 1 notifications (with receipts) to the server, as apps with both URLs get.")
    var v1 = false

    @Flag(name: .customLong("without-reconciliation"), help: "Give the server no App Store Server API access: see what lost notifications cost.")
    var withoutReconciliation = false

    @Option(
        help: ArgumentHelp(
            "With --check: when the simulated run ends, ISO 8601 (default \(DemoCommand.defaultCheckEnd)), so a seed gives the same run on any day; 'now' ends it now.",
            valueName: "date"))
    var until: String?

    /// Where `--check` ends by default: a fixed instant, so the same seed gives the same run
    /// whatever day it runs.
    static let defaultCheckEnd = "2026-11-23T21:00:00Z"

    @Flag(help: "Print less (no progress lines).")
    var quiet = false

    @Option(
        name: .customLong("revenuecat-webhook"),
        help: ArgumentHelp(
            "Also send the app's events in RevenueCat's webhook format to this http(s) URL (repeatable), with the demo's Authorization header.",
            valueName: "url"))
    var revenueCatWebhooks: [String] = []

    public init() {}

    public func validate() throws {
        if let customers, !(1...1_000_000).contains(customers) { throw ValidationError("--customers must be between 1 and 1000000") }
        if let days, !(days > 0 && days <= 3_650) { throw ValidationError("--days must be more than 0 and at most 3650") }
        for url in revenueCatWebhooks {
            guard let scheme = URL(string: url)?.scheme?.lowercased(), ["http", "https"].contains(scheme), URL(string: url)?.host != nil else {
                throw ValidationError("--revenuecat-webhook must be an http(s) URL")
            }
        }
        guard (0...1).contains(dropRate) else { throw ValidationError("--drop-rate must be between 0 and 1") }
        guard (0...1).contains(duplicateRate) else { throw ValidationError("--duplicate-rate must be between 0 and 1") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard stepHours > 0, stepHours <= 24 * 7 else { throw ValidationError("--step-hours must be more than 0 and at most 168") }
        guard liveSpeed > 0, liveSpeed <= 1_000_000 else { throw ValidationError("--live-speed must be more than 0 and at most 1000000") }
        if let until {
            guard check else { throw ValidationError("--until needs --check (the live demo always ends its run now)") }
            guard until == "now" || Self.instant(until) != nil else {
                throw ValidationError("--until must be an ISO 8601 instant such as 2026-11-23T21:00:00Z, or now")
            }
        }
    }

    /// The end of a checked run: `--until`, else the fixed default; `nil` for now.
    var runEnd: Date? {
        guard check else { return nil }
        let text = until ?? Self.defaultCheckEnd
        return text == "now" ? nil : Self.instant(text)
    }

    static func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    public func run() async throws {
        var settings = DemoSettings(
            check: check, customers: customers ?? (check ? 1_000 : 200), days: days ?? (check ? 365 : 120), dropRate: dropRate,
            duplicateRate: duplicateRate, seed: seed, dataDirectory: dataDirectory, databaseURL: databaseURL, port: check ? 0 : port,
            stepHours: stepHours,
            quiet: quiet, reconciles: !withoutReconciliation, sendsV1: v1, liveSpeed: liveSpeed, until: runEnd)
        settings.revenueCatWebhooks = revenueCatWebhooks
        let outcome = try await DemoRunner(settings: settings).run()
        if settings.check, !outcome.allMatched {
            throw CLIFailure(exitCode: 1, message: "")
        }
    }
}
