import Foundation
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore
import SubscriptionAnalytics

/// The routes `storekeeper bench read` times, over the seeded history's last year (its end
/// from the manifest, not today, so a seed reads the same whenever it is measured).
extension ReadBenchmark {
    /// One request to time, with the headers that present its caller.
    struct Route: Sendable {
        var name: String
        var path: String
        var headers: [(String, String)]
    }

    /// The metrics whose series are also timed with `groupBy=product` and `groupBy=storefront`.
    static let groupedMetrics: [MetricName] = [.mrr, .revenue, .churnedSubscriptions, .activeSubscriptions]

    /// Every route of the single-user pass, and those skipped with the reason: the API's
    /// snapshot, a year of daily values of every metric (some grouped), two years of monthly
    /// cohorts, the dashboard's pages (`cookie` is a signed-in session's), and the seed's
    /// experiment's results (admin key).
    static func routes(_ manifest: SeedManifest, app: AppConfiguration, adminKey: String, cookie: String) -> (routes: [Route], skipped: [String]) {
        let base = "/v1/apps/\(manifest.appId)"
        let key = [("Authorization", "Bearer \(manifest.apiKey)")]
        let year = "from=\(Timestamp.string(from: manifest.end.addingTimeInterval(-365 * 86_400)))&to=\(Timestamp.string(from: manifest.end))"
        var routes = [Route(name: "metrics", path: "\(base)/metrics", headers: key)]
        for metric in MetricName.allCases {
            routes.append(Route(name: "metrics/\(metric.rawValue)", path: "\(base)/metrics/\(metric.rawValue)?\(year)&interval=day", headers: key))
        }
        for metric in groupedMetrics {
            for breakdown in [Breakdown.product, .storefront] {
                routes.append(
                    Route(
                        name: "metrics/\(metric.rawValue) by \(breakdown.rawValue)",
                        path: "\(base)/metrics/\(metric.rawValue)?\(year)&interval=day&groupBy=\(breakdown.rawValue)", headers: key))
            }
        }
        let twoYearsBefore = twoYears(before: manifest.end)
        routes.append(
            Route(
                name: "cohorts",
                path: "\(base)/cohorts?from=\(Timestamp.string(from: twoYearsBefore))&to=\(Timestamp.string(from: manifest.end))&period=month",
                headers: key))
        let pages = dashboardPages(manifest, app: app, cookie: cookie)
        routes += pages
        let customer = manifest.customers?.first ?? "customer-0"
        let session = [("Cookie", cookie)]
        routes.append(
            Route(
                name: "dashboard csv", path: "/dashboard/apps/\(manifest.appId)/charts/mrr.csv?\(dashboardYear(manifest, app: app))&interval=day",
                headers: session))
        routes.append(Route(name: "dashboard customer", path: "/dashboard/apps/\(manifest.appId)/customers/\(customer)", headers: session))
        var skipped: [String] = []
        if let experiment = manifest.experimentId {
            routes.append(
                Route(
                    name: "experiment results", path: "\(base)/experiments/\(experiment)/results",
                    headers: [("Authorization", "Bearer \(adminKey)")]))
        } else {
            skipped.append("experiment results: the seed made no experiment (seeded before bench seed made one)")
        }
        return (routes, skipped)
    }

    /// The pages the two dashboard users load: Overview (the seed's last 30 days), Charts (a
    /// year of daily MRR) and Cohorts (two years of months).
    static func dashboardPages(_ manifest: SeedManifest, app: AppConfiguration, cookie: String) -> [Route] {
        let base = "/dashboard/apps/\(manifest.appId)"
        let session = [("Cookie", cookie)]
        let days = DayText(timeZone: app.analytics.timeZone)
        let lastDay = days.text(manifest.end.addingTimeInterval(-1))
        let month = days.text(manifest.end.addingTimeInterval(-30 * 86_400))
        let cohortsFrom = days.text(twoYears(before: manifest.end))
        return [
            Route(name: "dashboard overview", path: "\(base)/overview?from=\(month)&to=\(lastDay)&interval=day", headers: session),
            Route(name: "dashboard charts", path: "\(base)/charts?metric=mrr&\(dashboardYear(manifest, app: app))&interval=day", headers: session),
            Route(name: "dashboard cohorts", path: "\(base)/cohorts?from=\(cohortsFrom)&to=\(lastDay)&period=month", headers: session),
        ]
    }

    /// The seed's last 365 days as the dashboard's filter gives them (days, the last included).
    static func dashboardYear(_ manifest: SeedManifest, app: AppConfiguration) -> String {
        let days = DayText(timeZone: app.analytics.timeZone)
        return "from=\(days.text(manifest.end.addingTimeInterval(-365 * 86_400)))&to=\(days.text(manifest.end.addingTimeInterval(-1)))"
    }

    /// Two years (24 months of the Gregorian calendar in UTC) before `date`.
    static func twoYears(before date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar.date(byAdding: .month, value: -24, to: date) ?? date.addingTimeInterval(-730 * 86_400)
    }

    /// Days as the dashboard's filters read them: `YYYY-MM-DD` in the app's reporting time zone.
    struct DayText {
        private let formatter: DateFormatter

        init(timeZone identifier: String) {
            formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = TimeZone(identifier: identifier) ?? .gmt
            formatter.dateFormat = "yyyy-MM-dd"
        }

        func text(_ date: Date) -> String { formatter.string(from: date) }
    }
}
