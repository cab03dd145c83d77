import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

extension StorekeeperAPI {
    /// The snapshot metrics as the API answers them: money as numbers with two decimals in the
    /// reporting currency.
    struct SnapshotResponse: ResponseEncodable {
        var at: Date
        var environment: String
        var currency: String
        var activeSubscriptions: Int
        var activeTrials: Int
        var gracePeriod: Int
        var billingRetry: Int
        var familyShared: Int
        var mrr: Decimal
        var unconverted: [String: Decimal]
        var unpriced: Int

        init(_ snapshot: Snapshot, environment: String) {
            at = snapshot.at
            self.environment = environment
            currency = snapshot.currency
            activeSubscriptions = snapshot.activeSubscriptions
            activeTrials = snapshot.activeTrials
            gracePeriod = snapshot.gracePeriod
            billingRetry = snapshot.billingRetry
            familyShared = snapshot.familyShared
            mrr = snapshot.mrr
            unconverted = snapshot.unconverted
            unpriced = snapshot.unpriced
        }
    }

    /// `GET /v1/apps/{appId}/metrics?at=ISO8601[&environment=Sandbox]` (app or admin key): the
    /// snapshot metrics at `at` (now by default), from every fact known now, production only
    /// unless the sandbox is asked for.
    func metrics(_ request: Request, _ context: APIRequestContext) async throws -> SnapshotResponse {
        let app = try context.caller().app
        let query = request.uri.queryParameters
        var at = clock()
        if let text = query.get("at") {
            guard let date = Timestamp.date(from: text) else { throw APIError.badRequest("at must be an ISO 8601 instant") }
            at = date
        }
        let environment = query.get("environment") ?? "Production"
        guard ["Production", "Sandbox"].contains(environment) else { throw APIError.badRequest("environment must be Production or Sandbox") }
        let entries = try await store.ledger(appId: app.id)
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.configuration.analytics, environment: environment)
        return SnapshotResponse(analytics.snapshot(of: PurchaseHistory(ledger: entries), at: at), environment: environment)
    }
}

extension StorekeeperAPI {
    struct SeriesPoint: Encodable {
        var start: Date
        var end: Date
        var value: Decimal?
        var unconverted: [String: Decimal]

        init(_ point: MetricPoint) {
            start = point.start
            end = point.end
            value = point.value
            unconverted = point.unconverted
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try container.encode(value, forKey: .value)  // null, not absent, when there is none
            try container.encode(unconverted, forKey: .unconverted)
        }

        enum CodingKeys: String, CodingKey { case start, end, value, unconverted }
    }

    struct SeriesResponse: ResponseEncodable {
        var metric: String
        var interval: String
        var currency: String
        var timeZone: String
        var environment: String
        var points: [SeriesPoint]
        var groups: [String: [SeriesPoint]]?
    }

    /// `GET /v1/apps/{appId}/metrics/{name}?from=&to=&interval=day|week|month[&groupBy=product|storefront|offer][&environment=]`
    /// (app or admin key): one metric over calendar intervals in the app's time zone.
    func metricSeries(_ request: Request, _ context: APIRequestContext) async throws -> SeriesResponse {
        let app = try context.caller().app
        let name = try context.pathParameter("name")
        guard let metric = MetricName(rawValue: name) else {
            throw APIError.badRequest("unknown metric \(name.prefix(64)); one of \(MetricName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let query = request.uri.queryParameters
        guard let fromText = query.get("from"), let from = Timestamp.date(from: fromText), let toText = query.get("to"),
            let to = Timestamp.date(from: toText)
        else { throw APIError.badRequest("from and to must be ISO 8601 instants") }
        guard let interval = ReportingInterval(rawValue: query.get("interval") ?? "day") else {
            throw APIError.badRequest("interval must be day, week or month")
        }
        var breakdown: Breakdown?
        if let text = query.get("groupBy") {
            guard let value = Breakdown(rawValue: text) else { throw APIError.badRequest("groupBy must be product, storefront or offer") }
            breakdown = value
        }
        let environment = query.get("environment") ?? "Production"
        guard ["Production", "Sandbox"].contains(environment) else { throw APIError.badRequest("environment must be Production or Sandbox") }
        let configuration = app.configuration.analytics
        let timeZone = TimeZone(identifier: configuration.timeZone) ?? .gmt
        let intervals: [DateInterval]
        do {
            intervals = try interval.intervals(from: from, to: to, timeZone: timeZone)
        } catch {
            throw APIError.badRequest(error.description)
        }
        // One history per chain: Apple's commission counts a subscriber's service per chain.
        let entries = try await store.ledger(appId: app.id)
        let histories = Dictionary(grouping: entries) { $0.fact.originalTransactionId ?? "-" }.values.map(PurchaseHistory.init(ledger:))
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: configuration, environment: environment)
        return SeriesResponse(
            metric: metric.rawValue, interval: interval.rawValue, currency: configuration.reportingCurrency, timeZone: configuration.timeZone,
            environment: environment, points: analytics.series(metric, of: histories, over: intervals).map(SeriesPoint.init),
            groups: breakdown.map { analytics.series(metric, of: histories, over: intervals, by: $0).mapValues { $0.map(SeriesPoint.init) } })
    }
}
