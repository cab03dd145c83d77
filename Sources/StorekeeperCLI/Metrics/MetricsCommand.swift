import ArgumentParser
import Foundation
import Logging
import StorekeeperHTTP
import StorekeeperServer
import StorekeeperStore

/// `storekeeper metrics`: the app's metrics from its database, as `GET /v1/apps/{appId}/metrics`
/// (a snapshot), `…/metrics/{name}` (a series) and `…/cohorts` answer them.
public struct MetricsCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print an app's metrics (a snapshot, or one metric as a series) from its database.",
        discussion: """
            Without --metric: the snapshot at --at (now by default). With --metric NAME: that metric \
            from --from to --to by --interval, optionally --group-by product, storefront or offer. \
            With --cohorts: customers by the --period (week or month) they first paid, from --from to \
            --to, optionally of one --product. The JSON is the API's; --format table prints the same \
            figures as a table.
            """
    )

    @OptionGroup var options: ServeOptions

    @Option(help: "The app id (from the configuration).")
    var app: String

    @Option(help: "The snapshot's instant (ISO 8601); now by default.")
    var at: String?

    @Option(help: "A metric to print as a series (activeSubscriptions, mrr, revenue, churnRate …).")
    var metric: String?

    @Option(help: "The series' start (ISO 8601).")
    var from: String?

    @Option(help: "The series' end (ISO 8601).")
    var to: String?

    @Option(help: "day, week or month.")
    var interval: String?

    @Option(help: "product, storefront or offer.")
    var groupBy: String?

    @Flag(help: "Print cohorts (retention and revenue per customer) instead of metrics.")
    var cohorts = false

    @Option(help: "With --cohorts: week or month (default).")
    var period: String?

    @Option(help: "With --cohorts: only this product's subscribers.")
    var product: String?

    @Option(help: "Production (default) or Sandbox.")
    var environment: String?

    @Option(help: "json (default) or table.")
    var format: String = "json"

    public init() {}

    public func run() async throws {
        guard ["json", "table"].contains(format) else { throw CLIFailure.usage("--format must be json or table") }
        let configuration = try options.configuration()
        guard let app = configuration.apps.first(where: { $0.id == self.app }) else {
            throw CLIFailure.usage("no app \(self.app) in the configuration")
        }
        let parameters = [
            "at": at, "from": from, "to": to, "interval": interval, "groupBy": groupBy, "environment": environment, "period": period,
            "product": product,
        ].compactMapValues { $0 }
        if cohorts {
            guard metric == nil, at == nil, groupBy == nil, interval == nil else {
                throw CLIFailure.usage("--cohorts takes --from, --to, --period, --product and --environment only")
            }
        } else if period != nil || product != nil {
            throw CLIFailure.usage("--period and --product go with --cohorts")
        }
        let query: MetricsReport.Query
        let location: DatabaseLocation
        do {
            query = try MetricsReport.Query(metric: metric) { parameters[$0] }
            location = try DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
        } catch {
            throw CLIFailure.usage("\(error)")
        }
        var logger = Logger(label: "storekeeper.metrics")
        logger.logLevel = .warning
        if cohorts {
            let body: MetricsReport.CohortsBody
            do {
                body = try await SQLStore.withStore(location, logger: logger) { store in
                    try await MetricsReport.cohorts(parameters: { parameters[$0] }, app: app, now: Date()) { environment in
                        try await MetricsReport.figureSums(of: app, environment: environment, store: store)
                    }
                }
            } catch let invalid as MetricsReport.Invalid {
                throw CLIFailure.usage(invalid.description)
            }
            if format == "table" {
                Console.out(Data(MetricsTable.text(body).utf8))
            } else {
                Console.out(try MetricsReport.encoder().encode(body) + Data("\n".utf8))
            }
            return
        }
        let answer: MetricsReport.Answer
        do {
            answer = try await SQLStore.withStore(location, logger: logger) { store in
                try await MetricsReport.answer(query, app: app, store: store, now: Date())
            }
        } catch let invalid as MetricsReport.Invalid {
            throw CLIFailure.usage(invalid.description)
        }
        if format == "table" {
            Console.out(Data(MetricsTable.text(answer).utf8))
        } else {
            let data = try MetricsReport.encoder().encode(answer)
            Console.out(data + Data("\n".utf8))
        }
    }
}

/// The figures of an answer as an aligned text table.
enum MetricsTable {
    static func text(_ answer: MetricsReport.Answer) -> String {
        switch answer {
        case .snapshot(let body):
            let rows: [(String, String)] =
                [
                    ("at", Timestamp.string(from: body.at)), ("environment", body.environment), ("currency", body.currency),
                    ("activeSubscriptions", "\(body.activeSubscriptions)"), ("activeTrials", "\(body.activeTrials)"),
                    ("gracePeriod", "\(body.gracePeriod)"), ("billingRetry", "\(body.billingRetry)"),
                    ("familyShared", "\(body.familyShared)"), ("mrr", "\(body.mrr)"), ("unpriced", "\(body.unpriced)"),
                ] + body.unconverted.sorted { $0.key < $1.key }.map { ("mrr unconverted \($0.key)", "\($0.value)") }
            return table([("metric", "value")] + rows)
        case .series(let body):
            let groups = (body.groups ?? [:]).sorted { $0.key < $1.key }
            var rows = [["start", body.metric] + groups.map(\.key)]
            for (index, point) in body.points.enumerated() {
                rows.append(
                    [Timestamp.string(from: point.start), point.value.map { "\($0)" } ?? "-"]
                        + groups.map { group in group.value[index].value.map { "\($0)" } ?? "-" })
            }
            return table(rows)
        }
    }

    /// One row per cohort: its start, its size, then each period's retention and revenue per customer.
    static func text(_ body: MetricsReport.CohortsBody) -> String {
        let width = body.cohorts.map(\.periods.count).max() ?? 0
        var rows = [["cohort", "customers"] + (0..<width).map { "\(body.period) \($0)" }]
        for cohort in body.cohorts {
            let cells = cohort.periods.map { "\($0.retention) / \($0.revenuePerCustomer)" }
            rows.append([Timestamp.string(from: cohort.start), "\(cohort.customers)"] + cells + Array(repeating: "", count: width - cells.count))
        }
        return "retention / revenue per customer (\(body.currency))\n" + table(rows)
    }

    static func table(_ rows: [(String, String)]) -> String { table(rows.map { [$0.0, $0.1] }) }

    static func table(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }
}
