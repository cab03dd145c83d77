import Foundation
import Logging
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// `storekeeper analytics rebuild` builds an app's figures from a ledger written without them
/// (an earlier version's database), so they give what a replay of the ledger gives.
@Suite("storekeeper analytics rebuild")
struct AnalyticsRebuildTests {
    static let t0 = MetricsCommandTests.t0
    static let day = MetricsCommandTests.day

    @Test("figures built from a ledger written without them equal the replay; a rebuild again changes nothing; bad input is a usage error")
    func rebuild() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-rebuild-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        let config = directory.appendingPathComponent("config.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(
            #"""
            {"apps": [{"id": "alpha", "bundleId": "com.example.alpha", "appAppleId": 1, "environments": ["Production"],
              "apiKeys": [{"key": "alpha-app-key-0123456789", "role": "app"}],
              "analytics": {"exchangeRates": {"EUR": 1.25}, "timeZone": "Europe/Berlin"}}]}
            """#.utf8
        ).write(to: config)
        var logger = Logger(label: "test.rebuild")
        logger.logLevel = .critical
        let path = data.appendingPathComponent(DatabaseLocation.sqliteFileName).path
        var entries: [LedgerEntry] = []
        for number in 0..<40 {
            let price = Int64(4_990 + 1_000 * (number % 3))
            let currency = number % 2 == 0 ? "USD" : "EUR"
            let start = Self.t0 + Double(number) * Self.day
            let fact = MetricsCommandTests.purchase("\(1000 + number)", price: price, currency: currency, start: start)
            entries.append(LedgerEntry(appId: "alpha", fact: .purchase(fact), source: .storeKit2, recordedAt: Self.t0))
        }
        let written = entries
        _ = try await SQLStore.withStore(.sqlite(path: path), logger: logger) { store in
            try await store.apply(Changeset(appId: "alpha", at: Self.t0, entries: written))
        }
        let common = ["analytics", "rebuild", "--config", config.path, "--data-dir", data.path, "--app", "alpha"]
        let run = try await StorekeeperProcess.run(common)
        #expect(run.exitCode == 0, "\(run.standardError)")
        #expect(run.text.contains("figures of alpha built"))
        #expect(run.standardError.contains("Production: complete"))

        let analytics = SubscriptionAnalytics(
            catalog: .empty, configuration: AnalyticsConfiguration(exchangeRates: ["EUR": 1.25], timeZone: "Europe/Berlin"))
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let months = try ReportingInterval.month.intervals(from: Self.t0, to: Self.t0 + 120 * Self.day, timeZone: berlin)
        let now = Self.t0 + 50.5 * Self.day
        let histories = Dictionary(grouping: written) { $0.fact.originalTransactionId ?? "-" }.values.map(PurchaseHistory.init(ledger:))
        try await SQLStore.withStore(.sqlite(path: path), logger: logger) { store in
            #expect(try await store.figureState(appId: "alpha", environment: "Production")?.complete == true)
            let sums = try await store.figureSums(appId: "alpha", environment: "Production", calendar: FigureCalendar(timeZone: berlin))
            for metric in [MetricName.activeSubscriptions, .mrr, .revenue, .newSubscriptions] {
                let replay = analytics.series(metric, of: histories, over: months, now: now)
                #expect(try await analytics.series(metric, over: months, now: now, from: sums) == replay, "\(metric)")
                #expect(replay.contains { ($0.value ?? 0) > 0 }, "\(metric)")
            }
        }
        let again = try await StorekeeperProcess.run(common + ["--force"])
        #expect(again.exitCode == 0, "\(again.standardError)")
        #expect(try await StorekeeperProcess.run(common + ["--environment", "Xcode"]).exitCode == 2)
        #expect(
            try await StorekeeperProcess.run(["analytics", "rebuild", "--config", config.path, "--data-dir", data.path, "--app", "nobody"]).exitCode
                == 2)
    }
}
