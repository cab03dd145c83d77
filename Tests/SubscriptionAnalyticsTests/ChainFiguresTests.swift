import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// Figures answered from maintained chain rows (``ChainFigures`` summed by a ``FigureSums``) are
/// the replay's: every metric, every interval kind, with and without a breakdown, the interval
/// under way included, and after every fact added in a random order.
@Suite("Analytics: figures from maintained chain rows")
struct ChainFiguresTests {
    static let t0 = SnapshotTests.t0
    static let day = SnapshotTests.day
    static let analytics = SubscriptionAnalytics(
        catalog: SnapshotTests.catalog, configuration: AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.0825")!]),
        environment: "Production")

    /// The first point where two series differ, for a short failure message.
    static func difference(_ a: [MetricPoint], _ b: [MetricPoint]) -> String {
        guard a.count == b.count else { return "\(a.count) points against \(b.count)" }
        guard let position = a.indices.first(where: { a[$0] != b[$0] }) else { return "none" }
        return
            "at \(a[position].start): \(a[position].value.map { "\($0)" } ?? "nil") \(a[position].unconverted) against \(b[position].value.map { "\($0)" } ?? "nil") \(b[position].unconverted)"
    }

    static func difference(_ a: [String: [MetricPoint]], _ b: [String: [MetricPoint]]) -> String {
        guard a.keys.sorted() == b.keys.sorted() else { return "groups \(a.keys.sorted()) against \(b.keys.sorted())" }
        return a.keys.sorted().map { "\($0): " + difference(a[$0]!, b[$0]!) }.joined(separator: "; ")
    }

    static func book(_ histories: [PurchaseHistory]) -> FigureBook {
        var book = FigureBook()
        for (position, history) in histories.enumerated() { book.replace(chain: "c\(position)", with: analytics.figures(ofChain: history)) }
        return book
    }

    @Test("random histories: every metric by day, week and month, with every breakdown, equals the replay", arguments: [UInt64(1), 2, 3])
    func equalsReplay(seed: UInt64) async throws {
        let histories = SnapshotIndexTests.histories(seed: seed, chains: 60)
        let book = Self.book(histories)
        // Now is inside the year, in the middle of a day, a week and a month.
        let now = Self.t0 + 200.5 * Self.day
        for interval in ReportingInterval.allCases {
            let intervals = try interval.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: .gmt)
            for metric in MetricName.allCases {
                let replay = Self.analytics.series(metric, of: histories, over: intervals, now: now)
                let maintained = try await Self.analytics.series(metric, over: intervals, now: now, from: book)
                #expect(maintained == replay, "seed \(seed), \(metric) by \(interval): \(Self.difference(maintained, replay))")
            }
            for breakdown in Breakdown.allCases {
                for metric in [
                    MetricName.activeSubscriptions, .mrr, .revenue, .proceeds, .refundAmount, .newSubscriptions, .renewals, .churnedSubscriptions,
                    .churnRate,
                ] {
                    let replay = Self.analytics.series(metric, of: histories, over: intervals, now: now, by: breakdown)
                    let maintained = try await Self.analytics.series(metric, by: breakdown, over: intervals, now: now, from: book)
                    #expect(
                        maintained == replay, "seed \(seed), \(metric) by \(interval) grouped by \(breakdown): \(Self.difference(maintained, replay))"
                    )
                }
            }
        }
    }

    @Test("facts added one at a time in a random order: after each, the chain's new rows give the replay's figures", arguments: [UInt64(5), 6])
    func afterEveryFact(seed: UInt64) async throws {
        var dice = SnapshotIndexTests.Dice(state: seed)
        let complete = SnapshotIndexTests.histories(seed: seed, chains: 8)
        var facts: [(chain: Int, purchase: PurchaseFact?, renewal: RenewalFact?)] = []
        for (chain, history) in complete.enumerated() {
            facts += history.purchases.values.map { (chain, $0, nil) }
            facts += history.renewalTimeline.values.flatMap { $0 }.map { (chain, nil, $0) }
        }
        for position in facts.indices.reversed() { facts.swapAt(position, dice.next(position + 1)) }
        var histories = [PurchaseHistory](repeating: PurchaseHistory(), count: complete.count)
        var book = FigureBook()
        var rows = FigureRowsInMemory(calendar: FigureCalendar(timeZone: .gmt))
        let intervals = try ReportingInterval.week.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: .gmt)
        let now = Self.t0 + 300.25 * Self.day
        for (step, fact) in facts.enumerated() {
            if let purchase = fact.purchase { histories[fact.chain].add(purchase) }
            if let renewal = fact.renewal { histories[fact.chain].add(renewal) }
            book.replace(chain: "c\(fact.chain)", with: Self.analytics.figures(ofChain: histories[fact.chain]))
            rows.replace(chain: "c\(fact.chain)", with: Self.analytics.figures(ofChain: histories[fact.chain]))
            for metric in [MetricName.activeSubscriptions, .mrr, .revenue, .proceeds, .churnedSubscriptions, .billingIssues, .renewals] {
                let replay = Self.analytics.series(metric, of: histories, over: intervals, now: now)
                let maintained = try await Self.analytics.series(metric, over: intervals, now: now, from: book)
                #expect(maintained == replay, "seed \(seed), step \(step), \(metric): \(Self.difference(maintained, replay))")
                let rolledUp = try await Self.analytics.series(metric, over: intervals, now: now, from: RollupSums(rows: rows))
                #expect(rolledUp == replay, "seed \(seed), step \(step), \(metric) from rollups: \(Self.difference(rolledUp, replay))")
            }
        }
    }

    @Test(
        "daily rollups and the rows of partial days give the replay's figures, in time zones with summer time and half hours",
        arguments: ["UTC", "America/New_York", "Asia/Kolkata"])
    func rollups(zone: String) async throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let histories = SnapshotIndexTests.histories(seed: 11, chains: 60)
        var rows = FigureRowsInMemory(calendar: FigureCalendar(timeZone: timeZone))
        for (position, history) in histories.enumerated() { rows.replace(chain: "c\(position)", with: Self.analytics.figures(ofChain: history)) }
        let sums = RollupSums(rows: rows)
        // Now in the middle of a day; and at the last millisecond of one.
        for now in [Self.t0 + 200.37 * Self.day, Self.t0 + 230 * Self.day - 0.001] {
            for interval in ReportingInterval.allCases {
                let intervals = try interval.intervals(from: Self.t0 + 0.3 * Self.day, to: Self.t0 + 400 * Self.day, timeZone: timeZone)
                for metric in MetricName.allCases {
                    let replay = Self.analytics.series(metric, of: histories, over: intervals, now: now)
                    let maintained = try await Self.analytics.series(metric, over: intervals, now: now, from: sums)
                    #expect(maintained == replay, "\(zone), \(metric) by \(interval): \(Self.difference(maintained, replay))")
                }
            }
            // Intervals that are not the calendar's (an overview's range), and snapshots at any instant.
            let odd = [
                DateInterval(start: Self.t0 + 10.25 * Self.day, end: Self.t0 + 40.7 * Self.day),
                DateInterval(start: Self.t0 + 41 * Self.day, end: now),
            ]
            for metric in [MetricName.revenue, .proceeds, .refundAmount, .newSubscriptions, .churnedSubscriptions, .churnRate] {
                let replay = Self.analytics.series(metric, of: histories, over: odd, now: now)
                let maintained = try await Self.analytics.series(metric, over: odd, now: now, from: sums)
                #expect(maintained == replay, "\(zone), \(metric) over the range: \(Self.difference(maintained, replay))")
            }
            let instants = (0..<50).map { Self.t0 + Double($0) * 7.13 * Self.day }
            let index = SnapshotIndex(analytics: Self.analytics, histories: histories)
            let fromRollups = try await sums.snapshotSums(group: "", at: instants).enumerated().map {
                $1.snapshot(at: instants[$0], configuration: Self.analytics.configuration)
            }
            #expect(fromRollups == index.snapshots(at: instants), "\(zone): snapshots at any instant")
        }
        for breakdown in Breakdown.allCases {
            let intervals = try ReportingInterval.month.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: timeZone)
            let now = Self.t0 + 200.37 * Self.day
            for metric in [MetricName.mrr, .revenue, .churnedSubscriptions] {
                let replay = Self.analytics.series(metric, of: histories, over: intervals, now: now, by: breakdown)
                let maintained = try await Self.analytics.series(metric, by: breakdown, over: intervals, now: now, from: sums)
                #expect(maintained == replay, "\(zone), \(metric) grouped by \(breakdown): \(Self.difference(maintained, replay))")
            }
        }
    }
}
