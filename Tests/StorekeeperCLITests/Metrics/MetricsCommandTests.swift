import Foundation
import Logging
import StorekeeperStore
import SubscriptionEngine
import Testing

/// `storekeeper metrics` reads an app's ledger from its database and prints the API's JSON.
@Suite("storekeeper metrics")
struct MetricsCommandTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let day: TimeInterval = 86_400

    static func purchase(_ id: String, price: Int64, currency: String, start: Date) -> PurchaseFact {
        PurchaseFact(
            transactionId: id, originalTransactionId: id, productId: "pro.monthly", productType: .autoRenewable,
            subscriptionGroupIdentifier: "pro", purchaseDate: start, expiresDate: start + 30 * day,
            price: Money(milliunits: price, currency: currency), signedDate: start, environment: "Production", storefront: "DEU")
    }

    @Test("a snapshot and a series from a data directory, as JSON and as a table; bad input is a usage error")
    func snapshotAndSeries() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        let config = directory.appendingPathComponent("config.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(
            #"""
            {"apps": [{"id": "alpha", "bundleId": "com.example.alpha", "environments": ["Sandbox"],
              "apiKeys": [{"key": "alpha-app-key-0123456789", "role": "app"}],
              "analytics": {"exchangeRates": {"EUR": 1.25}}}]}
            """#.utf8
        ).write(to: config)
        var logger = Logger(label: "test.metrics")
        logger.logLevel = .critical
        _ = try await SQLStore.withStore(.sqlite(path: data.appendingPathComponent(DatabaseLocation.sqliteFileName).path), logger: logger) { store in
            try await store.apply(
                Changeset(
                    appId: "alpha", at: Self.t0,
                    entries: [
                        LedgerEntry(
                            appId: "alpha", fact: .purchase(Self.purchase("1", price: 9_990, currency: "USD", start: Self.t0)), source: .storeKit2,
                            recordedAt: Self.t0),
                        LedgerEntry(
                            appId: "alpha", fact: .purchase(Self.purchase("2", price: 7_990, currency: "EUR", start: Self.t0 + Self.day)),
                            source: .storeKit2, recordedAt: Self.t0),
                    ]))
        }
        let common = ["metrics", "--config", config.path, "--data-dir", data.path, "--app", "alpha"]
        let snapshot = try await StorekeeperProcess.run(common + ["--at", "2026-01-10T00:00:00Z"])
        #expect(snapshot.exitCode == 0, "\(snapshot.standardError)")
        let json = try snapshot.json()
        #expect(json["activeSubscriptions"] as? Int == 2)
        #expect(json["mrr"] as? Double == 19.98)  // 9.99 + 7.99 × 1.25 = 19.9775
        #expect(json["at"] as? String == "2026-01-10T00:00:00.000Z")

        let series = try await StorekeeperProcess.run(
            common + ["--metric", "revenue", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-03T00:00:00Z", "--group-by", "storefront"])
        #expect(series.exitCode == 0, "\(series.standardError)")
        let points = try series.json()["points"] as? [[String: Any]]
        #expect(points?.map { $0["value"] as? Double } == [9.99, 9.99])  // 7.99 × 1.25 = 9.9875
        let table = try await StorekeeperProcess.run(
            common + ["--metric", "revenue", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-03T00:00:00Z", "--format", "table"])
        #expect(table.exitCode == 0)
        #expect(table.text.contains("2026-01-02T00:00:00.000Z  9.99"))

        // Cohorts: both customers first paid in January; at January's end only the second (to February 1) is active.
        let cohorts = try await StorekeeperProcess.run(common + ["--cohorts", "--from", "2026-01-01T00:00:00Z", "--to", "2026-02-01T00:00:00Z"])
        #expect(cohorts.exitCode == 0, "\(cohorts.standardError)")
        let january = (try cohorts.json()["cohorts"] as? [[String: Any]])?.first
        #expect(january?["customers"] as? Int == 2)
        let periods = january?["periods"] as? [[String: Any]]
        #expect(periods?.first?["active"] as? Int == 1 && periods?.first?["retention"] as? Double == 0.5)
        #expect(periods?.first?["revenuePerCustomer"] as? Double == 9.99)  // (9.99 + 9.9875) ÷ 2 = 9.98875
        let cohortTable = try await StorekeeperProcess.run(
            common + ["--cohorts", "--from", "2026-01-01T00:00:00Z", "--to", "2026-02-01T00:00:00Z", "--format", "table"])
        #expect(cohortTable.exitCode == 0 && cohortTable.text.contains("2026-01-01T00:00:00.000Z  2"))

        for bad in [
            ["--metric", "nonsense", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-02T00:00:00Z"], ["--at", "soon"], ["--format", "xml"],
            ["--cohorts", "--from", "2026-01-01T00:00:00Z", "--to", "2026-02-01T00:00:00Z", "--period", "day"],
            ["--cohorts", "--metric", "mrr"], ["--period", "week"],
        ] {
            let refused = try await StorekeeperProcess.run(common + bad)
            #expect(refused.exitCode == 2, "\(bad): \(refused.standardError)")
        }
        #expect(try await StorekeeperProcess.run(["metrics", "--config", config.path, "--data-dir", data.path, "--app", "nobody"]).exitCode == 2)
    }
}
