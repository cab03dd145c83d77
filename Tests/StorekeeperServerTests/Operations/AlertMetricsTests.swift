import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Logging
import StorekeeperApps
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperStore
import Synchronization
import Testing

/// The alert rules (`deploy/prometheus/alerts.yml`) and the dashboard
/// (`deploy/grafana/storekeeper.json`) against what a server exports: a rule or a panel that
/// names a metric no server exports would stay silent forever, so it fails here.
@Suite("Operations: alerts read exported metrics")
struct AlertMetricsTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let ruleFiles = ["deploy/prometheus/alerts.yml", "deploy/grafana/storekeeper.json"]

    @Test("every metric the alert rules and the dashboard name is exported by a fresh server")
    func rulesNameExportedMetrics() async throws {
        try await ServerHarness.run(.memory) { _, client in
            let exposition = try await client.call(.get, "/metrics").text
            let exported = MetricNames.exported(in: exposition)
            for file in Self.ruleFiles {
                let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
                let named = MetricNames.named(in: text)
                #expect(named.count >= 10, "\(file) names only \(named.sorted())")
                let missing = MetricNames.missing(named, exported: exported)
                #expect(missing.isEmpty, "\(file) names metrics the server does not export: \(missing)")
            }
        }
    }

    @Test("a rule naming a metric the server does not export is caught")
    func unknownMetricIsCaught() {
        let exposition = """
            # TYPE storekeeper_database_up gauge
            storekeeper_database_up 1
            # TYPE storekeeper_event_delivery_seconds histogram
            storekeeper_event_delivery_seconds_bucket{destination="",le="0.005"} 0
            storekeeper_event_delivery_seconds_sum{destination=""} 0
            storekeeper_event_delivery_seconds_count{destination=""} 0
            """
        let rules = """
            expr: storekeeper_database_up == 0 and up{job="storekeeper"} == 1
            expr: histogram_quantile(0.9, rate(storekeeper_event_delivery_seconds_bucket[5m])) > 1
            expr: rate(storekeeper_event_delivery_seconds_count[5m]) > 0 or storekeeper_event_delivery_seconds > 0
            expr: increase(storekeeper_databse_errors_total[1h]) > 0
            """
        let named = MetricNames.named(in: rules)
        #expect(!named.contains("up"))
        #expect(MetricNames.missing(named, exported: MetricNames.exported(in: exposition)) == ["storekeeper_databse_errors_total"])
    }

    @Test("the series the alerts read exist at zero before anything happened")
    func seriesStartAtZero() async throws {
        try await ServerHarness.run(.memory) { _, client in
            let samples = MetricNames.samples(in: try await client.call(.get, "/metrics").text)
            for series in [
                "storekeeper_apple_api_responses_total{status=\"401\"}",
                "storekeeper_apple_api_responses_total{status=\"429\"}",
                "storekeeper_apple_api_responses_total{status=\"5xx\"}",
                "storekeeper_job_failures_total{kind=\"consumptionAnswer\",outcome=\"abandoned\"}",
                "storekeeper_notifications_processed_total{state=\"failed\"}",
                "storekeeper_notifications_refused_total{reason=\"unverified\"}",
                "storekeeper_event_deliveries_total{destination=\"\",outcome=\"dead\"}",
                "storekeeper_notifications_forwarded_total{outcome=\"abandoned\"}",
                "storekeeper_http_requests_total{route=\"/metrics\",status=\"200\"}",
                "storekeeper_inbox_pending",
                "storekeeper_inbox_oldest_pending_age_seconds",
            ] {
                #expect(samples[series] == 0, "\(series) is \(samples[series].map(String.init(describing:)) ?? "not exported")")
            }
            #expect(samples["storekeeper_database_up"] == 1)
            #expect(samples.contains { $0.key.hasPrefix("storekeeper_build_info{version=\"") && $0.value == 1 })
            // The fixture's apps trust root.der, made to expire in 2040; Apple's G3 root expires in 2039.
            #expect(samples["storekeeper_certificate_expiry_timestamp_seconds{kind=\"trusted_root\",name=\"root.der\"}"] == 2_208_988_800)
            let apple = try #require(samples["storekeeper_certificate_expiry_timestamp_seconds{kind=\"apple_root\",name=\"AppleRootCA-G3\"}"])
            #expect(Date(timeIntervalSince1970: apple) > Fixture.t0 + 365 * Fixture.day)
            // The zero series of the scrape's route is the one the first scrape then counted.
            let again = MetricNames.samples(in: try await client.call(.get, "/metrics").text)
            #expect(again["storekeeper_http_requests_total{route=\"/metrics\",status=\"200\"}"] == 1)
        }
    }

    @Test("a scrape reads the backlog from the database: how many are pending, how long the oldest has waited")
    func scrapeSamplesTheBacklog() async throws {
        let store = InMemoryStore()
        try await store.migrate()
        let t0 = Fixture.t0
        for (key, received) in [("old", t0 - 600), ("new", t0 - 5)] {
            _ = try await store.receive(InboxNotification(appId: "alpha", idempotencyKey: key, version: .v2, body: "{}", receivedAt: received))
        }
        let metrics = ServerMetrics()
        await metrics.sample(store, now: t0)
        let samples = MetricNames.samples(in: metrics.exposition())
        #expect(samples["storekeeper_inbox_pending"] == 2)
        #expect(samples["storekeeper_inbox_oldest_pending_age_seconds"] == 600)
        #expect(samples["storekeeper_database_up"] == 1)
    }

    @Test("a job that throws is counted by its kind: retrying while it will run again, abandoned when it will not")
    func jobFailuresByKind() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-alerts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (configuration, _) = try Fixture.configuration(directory: directory)
        let store = InMemoryStore()
        try await store.migrate()
        struct Hiccup: Error {}
        var fake = AppStoreServerAPIFake()
        fake.getAllSubscriptionStatusesHandler = { _, _ in throw Hiccup() }
        var runner = JobRunner(
            apps: try AppDirectory(configuration: configuration), store: store, clients: AppleClients(["alpha": fake]), clock: { Fixture.t0 },
            logger: Logger(label: "test.alerts", factory: { _ in SwiftLogNoOpLogHandler() }))
        let metrics = ServerMetrics()
        runner.metrics = metrics
        for (app, key) in [("alpha", "refresh:a"), ("beta", "refresh:b")] {
            // beta has no App Store Server API credentials: its job fails for good.
            _ = try await store.enqueue(
                JobRecord(
                    appId: app, kind: JobKind.refreshSubscription.rawValue, payload: "{\"originalTransactionId\":\"7001\"}", runAt: Fixture.t0,
                    idempotencyKey: key))
        }
        #expect(try await JobScheduler(runner: runner).runDue() == 2)
        let samples = MetricNames.samples(in: metrics.exposition())
        #expect(samples["storekeeper_job_failures_total{kind=\"refreshSubscription\",outcome=\"retrying\"}"] == 1)
        #expect(samples["storekeeper_job_failures_total{kind=\"refreshSubscription\",outcome=\"abandoned\"}"] == 1)
    }

    @Test("Apple's answers are counted by the status an operator acts on")
    func appleAnswersByStatus() async throws {
        let metrics = ServerMetrics()
        let transport = MeteredTransport(base: ScriptedStatuses(statuses: [200, 401, 429, 503, 418, nil, 204]), metrics: metrics)
        let request = HTTPRequestValue(method: "GET", url: try #require(URL(string: "https://api.storekit.itunes.apple.com/inApps/v1/x")))
        for _ in 0..<7 { _ = try? await transport.send(request) }
        let text = metrics.exposition()
        for (status, count) in [("2xx", 2), ("401", 1), ("429", 1), ("5xx", 1), ("4xx", 1), ("unanswered", 1)] {
            #expect(text.contains("storekeeper_apple_api_responses_total{status=\"\(status)\"} \(count)"), "\(status)")
        }
    }
}

/// Metric names in alert rules, dashboards and expositions.
enum MetricNames {
    /// Storekeeper's metric names a text mentions (every one starts `storekeeper_`; `up`, the
    /// functions and the labels do not).
    static func named(in text: String) -> Set<String> {
        Set(text.matches(of: /storekeeper_[a-z0-9_]+/).map { String($0.output) })
    }

    /// The sample names of a Prometheus text exposition (a histogram's `_bucket`, `_sum`, `_count`).
    static func exported(in exposition: String) -> Set<String> {
        Set(
            exposition.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
                line.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init)
            })
    }

    /// Each sample's value by series (name and labels as written).
    static func samples(in exposition: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// The names not exported, sorted; a histogram's own name counts as exported with its buckets.
    static func missing(_ names: Set<String>, exported: Set<String>) -> [String] {
        names.filter { !exported.contains($0) && !exported.contains($0 + "_bucket") }.sorted()
    }
}

/// A transport that answers the scripted statuses in turn (`nil`: no answer at all).
private final class ScriptedStatuses: HTTPTransport, Sendable {
    private let statuses: Mutex<[Int?]>
    init(statuses: [Int?]) { self.statuses = Mutex(statuses) }

    struct Unreachable: Error {}

    func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
        let next: Int?? = statuses.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard case let status?? = next else { throw Unreachable() }
        return HTTPResponseValue(status: status)
    }
}
