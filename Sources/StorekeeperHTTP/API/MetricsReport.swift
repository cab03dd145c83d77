import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// The app's metrics as the API and `storekeeper metrics` answer them: one query (snapshot at an
/// instant, or one metric as a series), one JSON shape, money with two decimals in the app's
/// reporting currency.
public enum MetricsReport {
    /// Why a query cannot be answered (the API's 400, the command's usage error).
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// What is asked: the snapshot at `at` (now when absent), or `metric` over `from..<to`.
    public struct Query: Sendable {
        /// Whether the snapshot index answers it: a snapshot, or a snapshot metric's series
        /// without a breakdown.
        public var readsIndexOnly: Bool { groupBy == nil && (metric?.isSnapshot ?? true) }

        public var at: Date?
        public var environment = "Production"
        public var metric: MetricName?
        public var from: Date?
        public var to: Date?
        public var interval = ReportingInterval.day
        public var groupBy: Breakdown?

        /// Reads the query's text parameters (`at`, `environment`, `from`, `to`, `interval`,
        /// `groupBy`) and the metric's name, when a series is asked for.
        public init(metric name: String?, parameters: (String) -> String?) throws(Invalid) {
            if let name {
                guard let metric = MetricName(rawValue: name) else {
                    throw Invalid(
                        description: "unknown metric \(name.prefix(64)); one of \(MetricName.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                self.metric = metric
                guard let from = parameters("from").flatMap(Timestamp.date(from:)), let to = parameters("to").flatMap(Timestamp.date(from:)) else {
                    throw Invalid(description: "from and to must be ISO 8601 instants")
                }
                (self.from, self.to) = (from, to)
                if let text = parameters("interval") {
                    guard let interval = ReportingInterval(rawValue: text) else { throw Invalid(description: "interval must be day, week or month") }
                    self.interval = interval
                }
                if let text = parameters("groupBy") {
                    guard let breakdown = Breakdown(rawValue: text) else {
                        throw Invalid(description: "groupBy must be product, storefront or offer")
                    }
                    groupBy = breakdown
                }
            } else if let text = parameters("at") {
                guard let date = Timestamp.date(from: text) else { throw Invalid(description: "at must be an ISO 8601 instant") }
                at = date
            }
            if let environment = parameters("environment") {
                guard ["Production", "Sandbox"].contains(environment) else { throw Invalid(description: "environment must be Production or Sandbox") }
                self.environment = environment
            }
        }
    }

    /// The answer: a snapshot or a series.
    public enum Answer: Sendable, Encodable {
        case snapshot(SnapshotBody)
        case series(SeriesBody)

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .snapshot(let body): try body.encode(to: encoder)
            case .series(let body): try body.encode(to: encoder)
            }
        }
    }

    /// Answers `query` for `app` from `store` (``figureSums(of:environment:store:)``).
    public static func answer(_ query: Query, app: AppConfiguration, store: any StorekeeperStorage, now: Date) async throws -> Answer {
        try await answer(query, app: app, sums: try await figureSums(of: app, environment: query.environment, store: store), now: now)
    }

    /// The sums of `app`'s figures in `environment` for the command line: the maintained ones
    /// once built, otherwise its whole ledger replayed in memory (the operator's choice: the
    /// server refuses to replay a large one).
    public static func figureSums(of app: AppConfiguration, environment: String, store: any StorekeeperStorage) async throws -> any FigureSums {
        try await FigureSource(store: store, replayLimit: nil).sums(of: app, environment: environment)
    }

    /// Answers `query` for `app` over its ledger `entries`; `now` stands for an absent `at`.
    public static func answer(_ query: Query, app: AppConfiguration, entries: [LedgerEntry], now: Date) throws(Invalid) -> Answer {
        let histories = histories(of: entries)
        if query.readsIndexOnly {
            let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.analytics, environment: query.environment)
            return try answer(query, app: app, index: SnapshotIndex(analytics: analytics, histories: histories), now: now)
        }
        return try answer(query, app: app, histories: histories, now: now)
    }

    /// The app's facts as one history per chain (Apple's commission counts a subscriber's service
    /// per chain; the snapshot index keeps chains apart).
    package static func histories(of entries: [LedgerEntry]) -> [PurchaseHistory] {
        Dictionary(grouping: entries) { $0.fact.originalTransactionId ?? "-" }.values.map(PurchaseHistory.init(ledger:))
    }

    /// Answers a query that ``Query/readsIndexOnly`` from the app's snapshot index.
    package static func answer(_ query: Query, app: AppConfiguration, index: SnapshotIndex, now: Date) throws(Invalid) -> Answer {
        guard let metric = query.metric else {
            let snapshot = index.snapshots(at: [query.at ?? now])[0]
            return .snapshot(SnapshotBody(snapshot, environment: query.environment))
        }
        let intervals = try intervals(of: query, app: app)
        let points = index.analytics.series(metric, of: [], over: intervals, now: now, index: index)
        return .series(
            SeriesBody(
                metric: metric.rawValue, interval: query.interval.rawValue, currency: app.analytics.reportingCurrency,
                timeZone: app.analytics.timeZone, environment: query.environment, points: points.map(PointBody.init), groups: nil))
    }

    package static func intervals(of query: Query, app: AppConfiguration) throws(Invalid) -> [DateInterval] {
        guard let from = query.from, let to = query.to else { throw Invalid(description: "from and to must be ISO 8601 instants") }
        do {
            return try query.interval.intervals(from: from, to: to, timeZone: TimeZone(identifier: app.analytics.timeZone) ?? .gmt)
        } catch {
            throw Invalid(description: error.description)
        }
    }

    package static func answer(_ query: Query, app: AppConfiguration, histories: [PurchaseHistory], now: Date) throws(Invalid) -> Answer {
        let configuration = app.analytics
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: configuration, environment: query.environment)
        guard let metric = query.metric else {
            return try answer(query, app: app, index: SnapshotIndex(analytics: analytics, histories: histories), now: now)
        }
        let intervals = try intervals(of: query, app: app)
        return .series(
            SeriesBody(
                metric: metric.rawValue, interval: query.interval.rawValue, currency: configuration.reportingCurrency,
                timeZone: configuration.timeZone, environment: query.environment,
                points: analytics.series(metric, of: histories, over: intervals, now: now).map(PointBody.init),
                groups: query.groupBy.map {
                    analytics.series(metric, of: histories, over: intervals, now: now, by: $0).mapValues { $0.map(PointBody.init) }
                }))
    }

    /// Answers a query from the app's maintained figures (their sums cost what the answer shows).
    package static func answer(_ query: Query, app: AppConfiguration, sums: any FigureSums, now: Date) async throws -> Answer {
        let configuration = app.analytics
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: configuration, environment: query.environment)
        guard let metric = query.metric else {
            let instant = query.at ?? now
            let snapshot = try await sums.snapshotSums(group: "", at: [instant])[0].snapshot(at: instant, configuration: configuration)
            return .snapshot(SnapshotBody(snapshot, environment: query.environment))
        }
        let intervals = try intervals(of: query, app: app)
        var groups: [String: [PointBody]]?
        if let breakdown = query.groupBy {
            groups = try await analytics.series(metric, by: breakdown, over: intervals, now: now, from: sums).mapValues { $0.map(PointBody.init) }
        }
        return .series(
            SeriesBody(
                metric: metric.rawValue, interval: query.interval.rawValue, currency: configuration.reportingCurrency,
                timeZone: configuration.timeZone, environment: query.environment,
                points: try await analytics.series(metric, over: intervals, now: now, from: sums).map(PointBody.init), groups: groups))
    }

    /// Answers a cohort query (`from`, `to`, `period` week or month, optional `product` and
    /// `environment`) for `app` from the sums of its figures in the environment asked
    /// (`sums`), following each cohort until `now`. The query is checked (``Invalid``) before
    /// `sums` is asked for.
    public static func cohorts(
        parameters: (String) -> String?, app: AppConfiguration, now: Date, sums: (_ environment: String) async throws -> any FigureSums
    ) async throws -> CohortsBody {
        guard let from = parameters("from").flatMap(Timestamp.date(from:)), let to = parameters("to").flatMap(Timestamp.date(from:)) else {
            throw Invalid(description: "from and to must be ISO 8601 instants")
        }
        let periodText = parameters("period") ?? "month"
        guard let period = ReportingInterval(rawValue: periodText), period != .day else { throw Invalid(description: "period must be week or month") }
        let environment = parameters("environment") ?? "Production"
        guard ["Production", "Sandbox"].contains(environment) else { throw Invalid(description: "environment must be Production or Sandbox") }
        let product = parameters("product")
        if let product, app.catalog.product(product) == nil {
            throw Invalid(description: "product \(product.prefix(64)) is not in the app's catalog")
        }
        do {
            _ = try period.intervals(from: from, to: to, timeZone: TimeZone(identifier: app.analytics.timeZone) ?? .gmt)
        } catch {
            throw Invalid(description: error.description)
        }
        let figures = try await sums(environment)
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.analytics, environment: environment)
        do {
            let cohorts = try await analytics.cohorts(from: figures, from: from, to: to, period: period, product: product, now: now)
            return CohortsBody(
                period: period.rawValue, currency: app.analytics.reportingCurrency, timeZone: app.analytics.timeZone, environment: environment,
                product: product, cohorts: cohorts)
        } catch let problem as ReportingInterval.Problem {
            throw Invalid(description: problem.description)
        }
    }

    /// The figures of `app` in `environment` computed in memory from its ledger (what the
    /// database keeps once built): each chain's rows and each customer's cohort rows.
    package static func replayedFigures(of app: AppConfiguration, environment: String, store: any StorekeeperStorage) async throws -> FigureBook {
        let entries = try await store.ledger(appId: app.id)
        let chains = Set(entries.compactMap(\.fact.originalTransactionId)).sorted()
        var customers: [String: String] = [:]
        for first in stride(from: 0, to: chains.count, by: 500) {
            let part = chains[first..<min(first + 500, chains.count)].map(CustomerAlias.originalTransactionId)
            for (alias, customer) in try await store.customers(appId: app.id, aliases: part) { customers[alias.value] = customer }
        }
        return replayedFigures(of: entries, customers: customers, app: app, environment: environment)
    }

    /// The figures of `app` in `environment` computed in memory from its ledger `entries`, the
    /// chains linked to customers as `customers` says.
    public static func replayedFigures(
        of entries: [LedgerEntry], customers: [String: String], app: AppConfiguration, environment: String
    ) -> FigureBook {
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.analytics, environment: environment)
        let calendar = FigureCalendar(timeZone: TimeZone(identifier: app.analytics.timeZone) ?? .gmt)
        var book = FigureBook()
        var owned: [String: [ChainFigures]] = [:]
        for (chain, facts) in Dictionary(grouping: entries, by: { $0.fact.originalTransactionId ?? "-" }) {
            let figures = analytics.figures(ofChain: PurchaseHistory(ledger: facts))
            book.replace(chain: chain, with: figures)
            if let owner = ChainFigureUpdates.owner(of: chain, customer: customers[chain], ledger: facts) {
                owned[owner, default: []].append(figures)
            }
        }
        for (owner, chains) in owned {
            book.replace(chain: FigureUpdate.cohortKey(owner), with: ChainFigures.cohortRows(of: chains, calendar: calendar))
        }
        return book
    }

    public struct CohortsBody: Sendable, Encodable, ResponseEncodable {
        public var period: String
        public var currency: String
        public var timeZone: String
        public var environment: String
        public var product: String?
        public var cohorts: [Cohort]
    }

    /// The JSON encoder of answers (instants as ISO 8601 with milliseconds, sorted keys).
    public static func encoder() -> JSONEncoder { JSONBody.encoder() }

    public struct SnapshotBody: Sendable, Encodable {
        public var at: Date
        public var environment: String
        public var currency: String
        public var activeSubscriptions: Int
        public var activeTrials: Int
        public var gracePeriod: Int
        public var billingRetry: Int
        public var familyShared: Int
        public var mrr: Decimal
        public var unconverted: [String: Decimal]
        public var unpriced: Int

        package init(_ snapshot: Snapshot, environment: String) {
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

    public struct PointBody: Sendable, Encodable {
        public var start: Date
        public var end: Date
        public var value: Decimal?
        public var unconverted: [String: Decimal]

        package init(_ point: MetricPoint) {
            start = point.start
            end = point.end
            value = point.value
            unconverted = point.unconverted
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try container.encode(value, forKey: .value)  // null, not absent, when there is none
            try container.encode(unconverted, forKey: .unconverted)
        }

        package enum CodingKeys: String, CodingKey { case start, end, value, unconverted }
    }

    public struct SeriesBody: Sendable, Encodable {
        public var metric: String
        public var interval: String
        public var currency: String
        public var timeZone: String
        public var environment: String
        public var points: [PointBody]
        public var groups: [String: [PointBody]]?
    }
}

extension MetricsReport.Answer: ResponseEncodable {}
