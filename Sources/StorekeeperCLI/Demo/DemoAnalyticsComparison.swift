import AppStoreSimulator
import AsyncHTTPClient
import Foundation

/// Compares the server's analytics with the simulator's own account of the business: at the end
/// of every simulated month, `activeSubscriptions`, `activeTrials` and `mrr`, and over the month
/// `revenue`, `proceeds` and `refundAmount`, as the server's `GET …/metrics/{name}` answers them
/// and as ``BusinessTruth`` computes them from the simulator's transactions (never through the
/// analytics target), to the cent.
struct DemoAnalyticsComparison {
    let world: DemoWorld
    let client: HTTPClient
    let serverBase: String

    struct Result: Sendable {
        var total = 0
        var matched = 0
        var mismatches: [String] = []
        var allMatched: Bool { matched == total }
    }

    /// The series answer's fields the comparison reads.
    struct Series: Decodable {
        struct Point: Decodable {
            var start: String
            var end: String
            var value: Double?
        }
        var currency: String
        var points: [Point]
    }

    static let metrics = ["activeSubscriptions", "activeTrials", "mrr", "revenue", "proceeds", "refundAmount"]

    func compare() async throws -> Result {
        let analytics = world.analytics
        let truth = BusinessTruth(
            store: world.store, products: world.population.products, reportingCurrency: analytics.reportingCurrency,
            exchangeRates: analytics.exchangeRates)
        var result = Result()
        let from = DemoComparison.format(world.start)
        let to = DemoComparison.format(world.end)
        for metric in Self.metrics {
            let url = "\(serverBase)/v1/apps/\(DemoWorld.appId)/metrics/\(metric)?from=\(from)&to=\(to)&interval=month"
            let (status, text) = try await DemoHTTP.send(client: client, method: .GET, url: url, key: world.adminKey, body: nil)
            guard status == 200, let series = try? JSONDecoder().decode(Series.self, from: Data(text.utf8)) else {
                result.total += 1
                result.mismatches.append("\(metric): the server answered \(status): \(text.prefix(200))")
                continue
            }
            for point in series.points {
                guard let start = DemoComparison.parse(point.start), let end = DemoComparison.parse(point.end), end <= world.end else { continue }
                result.total += 1
                let expected = Self.value(metric, truth: truth, start: start, end: end)
                let answered = point.value.flatMap { Decimal(string: String(format: "%.2f", $0)) }
                if answered == expected {
                    result.matched += 1
                } else {
                    result.mismatches.append(
                        "\(metric) \(point.start.prefix(10))…\(point.end.prefix(10)): server \(answered.map { "\($0)" } ?? "none") ≠ truth \(expected)"
                    )
                }
            }
        }
        return result
    }

    /// The truth's figure: snapshots at the last instant of the month, money over it.
    static func value(_ metric: String, truth: BusinessTruth, start: Date, end: Date) -> Decimal {
        let snapshot = { truth.snapshot(at: end.addingTimeInterval(-0.001)) }
        let sales = { truth.sales(from: start, to: end) }
        switch metric {
        case "activeSubscriptions": return Decimal(snapshot().activeSubscriptions)
        case "activeTrials": return Decimal(snapshot().activeTrials)
        case "mrr": return snapshot().mrr
        case "revenue": return sales().revenue
        case "proceeds": return sales().proceeds
        default: return sales().refundAmount
        }
    }
}
