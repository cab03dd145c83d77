import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// A request's figure sums: each question reaches the store once, and every answer, and so every
/// figure, is the store's own.
@Suite("Analytics: a request's figure sums, each asked once")
struct RememberedFigureSumsTests {
    /// Sums that count the questions that reach them.
    actor Counting: FigureSums {
        let book: FigureBook
        var questions = 0

        init(_ book: FigureBook) {
            self.book = book
        }

        func snapshotSums(group: String, at instants: [Date]) async throws -> [SnapshotSums] {
            questions += 1
            return book.snapshotSums(group: group, at: instants)
        }

        func itemSums(group: String, over intervals: [DateInterval], now: Date, money: ItemMoney) async throws -> [ItemSums] {
            questions += 1
            return book.itemSums(group: group, over: intervals, now: now, money: money)
        }

        func churned(group: String, over intervals: [DateInterval], now: Date) async throws -> [Int] {
            questions += 1
            return book.churned(group: group, over: intervals, now: now)
        }

        func groups(of breakdown: Breakdown) async throws -> [String] {
            questions += 1
            return book.groups(of: breakdown)
        }
    }

    @Test("an Overview's metrics asked twice reach the store once, with the store's figures")
    func askedOnce() async throws {
        let histories = SnapshotIndexTests.histories(seed: 4, chains: 40)
        let book = ChainFiguresTests.book(histories)
        let counting = Counting(book)
        let remembered = RememberedFigureSums(counting)
        let analytics = ChainFiguresTests.analytics
        let now = ChainFiguresTests.t0 + 200.5 * ChainFiguresTests.day
        let days = try ReportingInterval.day.intervals(from: now - 30 * ChainFiguresTests.day, to: now, timeZone: .gmt)
        let metrics: [MetricName] = [.revenue, .churnedSubscriptions, .newSubscriptions, .activeSubscriptions, .mrr, .proceeds, .refunds]
        var first: [[MetricPoint]] = []
        for metric in metrics { first.append(try await analytics.series(metric, over: days, now: now, from: remembered)) }
        let asked = await counting.questions
        for (position, metric) in metrics.enumerated() {
            #expect(try await analytics.series(metric, over: days, now: now, from: remembered) == first[position])
            #expect(try await analytics.series(metric, over: days, now: now, from: book) == first[position], "\(metric)")
        }
        #expect(await counting.questions == asked)
        // The same items with other money, the same instants of another group: new questions.
        _ = try await remembered.itemSums(group: "", over: days, now: now, money: .all)
        _ = try await remembered.snapshotSums(group: "product=pro.monthly", at: days.map(\.end))
        #expect(await counting.questions == asked + 2)
    }
}
