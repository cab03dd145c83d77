import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// Overview, Charts (with CSV) and Cohorts: the analytics API's own answers, drawn.
extension Dashboard {
    package func addChartRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get("apps/:appId/overview", use: overview)
            .get("apps/:appId/charts", use: charts)
            .get("apps/:appId/charts/:file", use: chartCSV)
            .get("apps/:appId/cohorts", use: cohortsPage)
    }

    /// The range, interval and filters a chart page was asked for, checked; days are the app's.
    package struct ChartQuery {
        package var from: Date
        package var to: Date
        package var fromText: String
        package var toText: String
        package var interval: ReportingInterval
        package var environment: String
        package var product: String?
        package var storefront: String?

        package init(_ request: Request, app: AppConfiguration, now: Date, defaultDays: Int = 30, defaultInterval: ReportingInterval = .day) throws {
            let parameters = request.uri.queryParameters
            let days = DayFormat(timeZone: app.analytics.timeZone)
            let tomorrow = days.calendar.date(byAdding: .day, value: 1, to: days.calendar.startOfDay(for: now)) ?? now
            if let text = parameters.get("to"), !text.isEmpty {
                guard let day = days.date(text) else { throw DashboardError.badRequest("to must be a day, YYYY-MM-DD") }
                to = days.calendar.date(byAdding: .day, value: 1, to: day) ?? day
            } else {
                to = tomorrow
            }
            if let text = parameters.get("from"), !text.isEmpty {
                guard let day = days.date(text) else { throw DashboardError.badRequest("from must be a day, YYYY-MM-DD") }
                from = day
            } else {
                from = days.calendar.date(byAdding: .day, value: -defaultDays, to: to) ?? to
            }
            guard from < to else { throw DashboardError.badRequest("from must be before to") }
            fromText = days.text(from)
            toText = days.text(days.calendar.date(byAdding: .day, value: -1, to: to) ?? to)
            interval = defaultInterval
            if let text = parameters.get("interval"), !text.isEmpty {
                guard let value = ReportingInterval(rawValue: text) else { throw DashboardError.badRequest("interval must be day, week or month") }
                interval = value
            }
            environment = parameters.get("environment").flatMap { $0.isEmpty ? nil : $0 } ?? "Production"
            guard ["Production", "Sandbox"].contains(environment) else {
                throw DashboardError.badRequest("environment must be Production or Sandbox")
            }
            product = parameters.get("product").flatMap { $0.isEmpty ? nil : $0 }
            if let product, app.catalog.product(product) == nil {
                throw DashboardError.badRequest("product \(product.prefix(64)) is not in the app's catalog")
            }
            storefront = parameters.get("storefront").flatMap { $0.isEmpty ? nil : $0.uppercased() }
            if let storefront, storefront.count != 3 || !storefront.allSatisfy({ $0.isASCII && $0.isLetter }) {
                throw DashboardError.badRequest("storefront must be a three-letter country code (USA, DEU …)")
            }
            if product != nil, storefront != nil { throw DashboardError.badRequest("filter by a product or by a storefront, not both") }
        }

        /// The query's parameters as the analytics API reads them.
        package func apiParameters(groupBy: Breakdown?) -> [String: String] {
            var values = [
                "from": Timestamp.string(from: from), "to": Timestamp.string(from: to), "interval": interval.rawValue, "environment": environment,
            ]
            if let groupBy { values["groupBy"] = groupBy.rawValue }
            return values
        }

        package var breakdown: (Breakdown, String)? {
            if let product { return (.product, product) }
            if let storefront { return (.storefront, storefront) }
            return nil
        }

        /// The query string that reproduces this view (for links and the CSV download).
        package var queryString: String {
            var items = ["from=\(fromText)", "to=\(toText)", "interval=\(interval.rawValue)", "environment=\(environment)"]
            if let product { items.append("product=" + Dashboard.queryComponent(product)) }
            if let storefront { items.append("storefront=" + storefront) }
            return items.joined(separator: "&")
        }
    }

    /// Reads metric series as the API answers them, from the app's figures (``FigureSource``).
    package struct MetricReader {
        package let app: AppConfiguration
        package let analytics: SubscriptionAnalytics
        package let sums: any FigureSums
        package let now: Date

        package func series(_ metric: MetricName, _ query: ChartQuery) async throws -> MetricsReport.SeriesBody {
            let parameters = query.apiParameters(groupBy: query.breakdown?.0)
            let apiQuery: MetricsReport.Query
            do {
                apiQuery = try MetricsReport.Query(metric: metric.rawValue) { parameters[$0] }
            } catch {
                throw DashboardError.badRequest(error.description)
            }
            let answer: MetricsReport.Answer
            do {
                answer = try await MetricsReport.answer(apiQuery, app: app, sums: sums, now: now)
            } catch let invalid as MetricsReport.Invalid {
                throw DashboardError.badRequest(invalid.description)
            }
            guard case .series(var body) = answer else { throw DashboardError.badRequest("not a series") }
            if let (_, value) = query.breakdown {
                // The group's own series; a group with no periods is all zeros.
                body.points =
                    body.groups?[value]
                    ?? body.points.map { point in
                        var zero = point
                        zero.value = metric == .churnRate ? nil : 0
                        zero.unconverted = [:]
                        return zero
                    }
                body.groups = nil
            }
            return body
        }

        /// `metric` over exactly the query's range `[from, to)` as one interval, whatever the
        /// chart's interval (a week or month series reaches past the range to whole weeks or
        /// months), read up to now like any series: a flow's total over the range, a snapshot's
        /// value at the range's end (now, when the range reaches past now). The group's own
        /// figure when the query filters by product or storefront.
        package func overRange(_ metric: MetricName, _ query: ChartQuery) async throws -> Decimal? {
            let range = [DateInterval(start: query.from, end: query.to)]
            guard let (breakdown, value) = query.breakdown else {
                return try await analytics.series(metric, over: range, now: now, from: sums)[0].value
            }
            // A group with no periods has nothing in it.
            let group = ChainFigures.group(breakdown, value)
            guard try await sums.groups(of: breakdown).contains(group) else {
                return metric == .churnRate || (metric.isSnapshot && query.from > now) ? nil : 0
            }
            return try await analytics.series(metric, group: group, over: range, now: now, from: sums)[0].value
        }

        /// The snapshot at `instant`, as `GET /v1/apps/{appId}/metrics?at=` answers it.
        package func snapshot(at instant: Date) async throws -> Snapshot {
            try await sums.snapshotSums(group: "", at: [instant])[0].snapshot(at: instant, configuration: app.analytics)
        }
    }

    package func metricReader(_ app: AppRuntime, environment: String) async throws -> MetricReader {
        let configuration = app.configuration
        let sums: any FigureSums
        do {
            sums = try await FigureSource(store: api.reads).sums(of: configuration, environment: environment)
        } catch let building as FiguresBuilding {
            throw DashboardError(status: .serviceUnavailable, message: building.description)
        }
        return MetricReader(
            app: configuration,
            analytics: SubscriptionAnalytics(catalog: configuration.catalog, configuration: configuration.analytics, environment: environment),
            sums: RememberedFigureSums(sums), now: clock())
    }

    // MARK: - Overview

    package struct Tile {
        package var id: String
        package var label: String
        package var value: String
        package var note: String
    }

    package struct ChartBlock {
        package var id: String
        package var title: String
        package var svg: String
        package var href: String
    }

    package struct OverviewModel {
        package var query: FilterModel
        package var at: String
        package var atText: String
        package var tiles: [Tile]
        package var charts: [ChartBlock]
    }

    /// The filter form's values.
    package struct FilterModel {
        package struct Option {
            package var value: String
            package var label: String
            package var selected: Bool
        }
        package var action: String
        package var from: String
        package var to: String
        package var intervals: [Option]
        package var environments: [Option]
        package var products: [Option]
        package var storefront: String
        package var hasFilters: Bool
        package var metric: String?
    }

    package func filterModel(_ query: ChartQuery, app: AppRuntime, action: String, metric: String? = nil) -> FilterModel {
        FilterModel(
            action: action, from: query.fromText, to: query.toText,
            intervals: ReportingInterval.allCases.map { .init(value: $0.rawValue, label: $0.rawValue, selected: $0 == query.interval) },
            environments: ["Production", "Sandbox"].map { .init(value: $0, label: $0, selected: $0 == query.environment) },
            products: [.init(value: "", label: "All products", selected: query.product == nil)]
                + app.catalog.products.map(\.productId).sorted().map { .init(value: $0, label: $0, selected: $0 == query.product) },
            storefront: query.storefront ?? "", hasFilters: query.breakdown != nil, metric: metric)
    }

    package func overview(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try app(context)
        let now = clock()
        let query = try ChartQuery(request, app: app.configuration, now: now)
        let reader = try await metricReader(app, environment: query.environment)
        let currency = app.configuration.analytics.reportingCurrency
        var tiles: [Tile] = []
        if query.breakdown == nil {
            // The snapshot exactly as GET /v1/apps/{appId}/metrics?at= answers it.
            let snapshot = try await reader.snapshot(at: now)
            tiles += [
                Tile(id: "activeSubscriptions", label: "Active subscriptions", value: "\(snapshot.activeSubscriptions)", note: "now"),
                Tile(id: "activeTrials", label: "Active trials", value: "\(snapshot.activeTrials)", note: "now"),
                Tile(id: "mrr", label: "MRR", value: Self.money(snapshot.mrr, currency), note: "now"),
                Tile(id: "gracePeriod", label: "In grace period", value: "\(snapshot.gracePeriod)", note: "now"),
                Tile(id: "billingRetry", label: "In billing retry", value: "\(snapshot.billingRetry)", note: "now"),
            ]
        } else {
            for (metric, label) in [(MetricName.activeSubscriptions, "Active subscriptions"), (.activeTrials, "Active trials"), (.mrr, "MRR")] {
                tiles.append(
                    Tile(
                        id: metric.rawValue, label: label,
                        value: Self.text(try await reader.overRange(metric, query), metric: metric, currency: currency),
                        note: query.to > now ? "now" : "at the end of the range"))
            }
        }
        var series: [MetricName: MetricsReport.SeriesBody] = [:]
        for metric in [MetricName.revenue, .churnedSubscriptions, .newSubscriptions, .activeSubscriptions, .mrr] {
            series[metric] = try await reader.series(metric, query)
        }
        // Exactly the range, whatever the chart's interval.
        var totals: [MetricName: Decimal] = [:]
        for metric in [MetricName.revenue, .proceeds, .newSubscriptions, .churnedSubscriptions, .refunds, .refundAmount] {
            totals[metric] = try await reader.overRange(metric, query) ?? 0
        }
        func total(_ metric: MetricName) -> Decimal { totals[metric] ?? 0 }
        tiles += [
            Tile(id: "revenue", label: "Revenue", value: Self.money(total(.revenue), currency), note: "over the range"),
            Tile(id: "proceeds", label: "Proceeds", value: Self.money(total(.proceeds), currency), note: "over the range"),
            Tile(id: "newSubscriptions", label: "New subscriptions", value: Self.count(total(.newSubscriptions)), note: "over the range"),
            Tile(id: "churnedSubscriptions", label: "Churned", value: Self.count(total(.churnedSubscriptions)), note: "over the range"),
            Tile(
                id: "refunds", label: "Refunds", value: Self.count(total(.refunds)),
                note: Self.money(total(.refundAmount), currency) + " over the range"),
        ]
        let base = "/dashboard/apps/\(Self.pathComponent(app.id))"
        let charts = [MetricName.activeSubscriptions, .mrr, .revenue, .newSubscriptions, .churnedSubscriptions].map { metric in
            ChartBlock(
                id: metric.rawValue, title: Self.title(of: metric), svg: chart(metric, series[metric]!, currency: currency).svg,
                href: "\(base)/charts?metric=\(metric.rawValue)&\(query.queryString)")
        }
        let model = OverviewModel(
            query: filterModel(query, app: app, action: "\(base)/overview"), at: Timestamp.string(from: now),
            atText: DayFormat(timeZone: app.configuration.analytics.timeZone).instant(now), tiles: tiles, charts: charts)
        return templates.page("overview", title: "Overview", frame: frame(visitor, app: app, section: "overview"), page: model)
    }

    // MARK: - Charts

    package struct ChartsModel {
        package struct Row {
            package var start: String
            package var end: String
            package var value: String
            package var unconverted: String
        }
        package struct MetricLink {
            package var name: String
            package var title: String
            package var href: String
            package var current: Bool
        }
        package var query: FilterModel
        package var metrics: [MetricLink]
        package var title: String
        package var definition: String
        package var svg: String
        package var rows: [Row]
        package var csv: String
        package var hasUnconverted: Bool
    }

    package func charts(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try app(context)
        let query = try ChartQuery(request, app: app.configuration, now: clock())
        let name = request.uri.queryParameters.get("metric") ?? MetricName.activeSubscriptions.rawValue
        guard let metric = MetricName(rawValue: name) else { throw DashboardError.badRequest("unknown metric \(name.prefix(64))") }
        let reader = try await metricReader(app, environment: query.environment)
        let body = try await reader.series(metric, query)
        let currency = app.configuration.analytics.reportingCurrency
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        let base = "/dashboard/apps/\(Self.pathComponent(app.id))"
        let rows = body.points.map { point in
            ChartsModel.Row(
                start: days.text(point.start), end: days.text(point.end), value: Self.text(point.value, metric: metric, currency: currency),
                unconverted: point.unconverted.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        let model = ChartsModel(
            query: filterModel(query, app: app, action: "\(base)/charts", metric: metric.rawValue),
            metrics: MetricName.allCases.map {
                .init(
                    name: $0.rawValue, title: Self.title(of: $0), href: "\(base)/charts?metric=\($0.rawValue)&\(query.queryString)",
                    current: $0 == metric)
            },
            title: Self.title(of: metric), definition: Self.definition(of: metric), svg: chart(metric, body, currency: currency).svg, rows: rows,
            csv: "\(base)/charts/\(metric.rawValue).csv?\(query.queryString)", hasUnconverted: rows.contains { !$0.unconverted.isEmpty })
        return templates.page("charts", title: Self.title(of: metric), frame: frame(visitor, app: app, section: "charts"), page: model)
    }

    /// `…/charts/{metric}.csv`: the chart's table as CSV (instants in ISO 8601, values as the API gives them).
    package func chartCSV(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (_, app) = try app(context)
        let file = try context.pathParameter("file")
        guard file.hasSuffix(".csv"), let metric = MetricName(rawValue: String(file.dropLast(4))) else { throw DashboardError.notFound }
        let query = try ChartQuery(request, app: app.configuration, now: clock())
        let reader = try await metricReader(app, environment: query.environment)
        let body = try await reader.series(metric, query)
        var csv = "start,end,\(metric.rawValue),currency,unconverted\r\n"
        for point in body.points {
            let unconverted = point.unconverted.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "; ")
            csv += "\(Timestamp.string(from: point.start)),\(Timestamp.string(from: point.end)),\(point.value.map { "\($0)" } ?? ""),"
            csv += "\(Self.isMoney(metric) ? body.currency : ""),\(unconverted)\r\n"
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(app.id)-\(metric.rawValue).csv\"",
            ],
            body: .init(byteBuffer: ByteBuffer(string: csv)))
    }

    package func chart(_ metric: MetricName, _ body: MetricsReport.SeriesBody, currency: String) -> SVGChart {
        let days = DayFormat(timeZone: body.timeZone)
        return SVGChart(
            title: Self.title(of: metric), style: metric.isSnapshot ? .line : .bars,
            points: body.points.map { point in
                SVGChart.Point(
                    label: days.text(point.start), value: point.value.map { NSDecimalNumber(decimal: $0).doubleValue },
                    text: Self.text(point.value, metric: metric, currency: currency))
            })
    }

    // MARK: - Cohorts

    package struct CohortsModel {
        package struct Cell {
            package var text: String
            package var heat: Int
            package var detail: String
        }
        package struct Row {
            package var start: String
            package var customers: Int
            package var cells: [Cell]
        }
        package var query: FilterModel
        package var periods: [Int]
        package var rows: [Row]
        package var period: String
        package var isMonth: Bool
    }

    package func cohortsPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try app(context)
        let now = clock()
        let query = try ChartQuery(request, app: app.configuration, now: now, defaultDays: 180, defaultInterval: .month)
        let period = request.uri.queryParameters.get("period").flatMap { $0.isEmpty ? nil : $0 } ?? "month"
        var parameters = ["from": Timestamp.string(from: query.from), "to": Timestamp.string(from: query.to), "period": period]
        parameters["environment"] = query.environment
        parameters["product"] = query.product
        let body: MetricsReport.CohortsBody
        do {
            let parameter: (String) -> String? = { parameters[$0] }
            body = try await MetricsReport.cohorts(parameters: parameter, app: app.configuration, now: now) {
                try await metricReader(app, environment: $0).sums
            }
        } catch let invalid as MetricsReport.Invalid {
            throw DashboardError.badRequest(invalid.description)
        }
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        let width = body.cohorts.map(\.periods.count).max() ?? 0
        let rows = body.cohorts.map { cohort in
            CohortsModel.Row(
                start: days.text(cohort.start), customers: cohort.customers,
                cells: cohort.periods.map { cell in
                    let share = NSDecimalNumber(decimal: cell.retention).doubleValue
                    return CohortsModel.Cell(
                        text: String(format: "%.0f%%", share * 100), heat: max(0, min(10, Int((share * 10).rounded()))),
                        detail: "\(cell.active) active, \(Self.money(cell.revenuePerCustomer, body.currency)) per customer so far")
                })
        }
        var filter = filterModel(query, app: app, action: "/dashboard/apps/\(Self.pathComponent(app.id))/cohorts")
        filter.intervals = ["month", "week"].map { .init(value: $0, label: $0, selected: $0 == period) }
        let model = CohortsModel(query: filter, periods: Array(0..<width), rows: rows, period: period, isMonth: period == "month")
        return templates.page("cohorts", title: "Cohorts", frame: frame(visitor, app: app, section: "cohorts"), page: model)
    }

    // MARK: - Text

    package static func isMoney(_ metric: MetricName) -> Bool {
        [.mrr, .revenue, .proceeds, .refundAmount, .netRevenue].contains(metric)
    }

    package static func text(_ value: Decimal?, metric: MetricName, currency: String) -> String {
        guard let value else { return "–" }
        if isMoney(metric) { return money(value, currency) }
        if metric == .churnRate { return String(format: "%.2f%%", NSDecimalNumber(decimal: value).doubleValue * 100) }
        return count(value)
    }

    package static func money(_ value: Decimal, _ currency: String) -> String {
        String(format: "%.2f", NSDecimalNumber(decimal: value).doubleValue) + " " + currency
    }

    package static func count(_ value: Decimal) -> String { "\(value)" }

    package static func title(of metric: MetricName) -> String {
        switch metric {
        case .activeSubscriptions: "Active subscriptions"
        case .activeTrials: "Active trials"
        case .gracePeriod: "In grace period"
        case .billingRetry: "In billing retry"
        case .familyShared: "Family shared"
        case .mrr: "Monthly recurring revenue"
        case .revenue: "Revenue"
        case .proceeds: "Proceeds"
        case .refunds: "Refunds"
        case .refundAmount: "Refunded amount"
        case .netRevenue: "Net revenue"
        case .newTrials: "New trials"
        case .newSubscriptions: "New subscriptions"
        case .trialConversions: "Trial conversions"
        case .renewals: "Renewals"
        case .churnedSubscriptions: "Churned subscriptions"
        case .churnRate: "Churn rate"
        case .billingIssues: "Billing issues"
        case .billingRecoveries: "Billing recoveries"
        }
    }

    package static func definition(of metric: MetricName) -> String {
        metric.isSnapshot
            ? "A state: the value at the end of each interval (now, for the interval under way), from every fact known now."
            : "A flow: counted or summed over each interval (up to now, for the interval under way), from every fact known now."
    }
}

/// Days and instants in an app's reporting time zone.
package struct DayFormat {
    package let calendar: Calendar
    private let formatter: DateFormatter
    private let instantFormatter: DateFormatter

    package init(timeZone identifier: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? .gmt
        self.calendar = calendar
        formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd"
        instantFormatter = DateFormatter()
        instantFormatter.calendar = calendar
        instantFormatter.locale = Locale(identifier: "en_US_POSIX")
        instantFormatter.timeZone = calendar.timeZone
        instantFormatter.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
    }

    package func text(_ date: Date) -> String { formatter.string(from: date) }
    package func instant(_ date: Date) -> String { instantFormatter.string(from: date) }

    package func date(_ text: String) -> Date? {
        guard text.count == 10, let date = formatter.date(from: text) else { return nil }
        return date
    }
}
