import Foundation
import SubscriptionAnalytics
import Testing

@Suite("Analytics: reporting intervals")
struct ReportingIntervalTests {
    static func date(_ text: String) -> Date { try! Date.ISO8601FormatStyle().parse(text) }

    @Test("days, ISO weeks and months are cut in the reporting time zone")
    func calendar() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let days = try ReportingInterval.day.intervals(
            from: Self.date("2026-03-28T12:00:00Z"), to: Self.date("2026-03-30T00:00:00Z"), timeZone: berlin)
        #expect(days.map(\.start) == [Self.date("2026-03-27T23:00:00Z"), Self.date("2026-03-28T23:00:00Z"), Self.date("2026-03-29T22:00:00Z")])
        #expect(days[1].duration == 23 * 3_600)  // the spring-forward day is 23 hours long
        let weeks = try ReportingInterval.week.intervals(
            from: Self.date("2026-01-01T00:00:00Z"), to: Self.date("2026-01-13T00:00:00Z"), timeZone: .gmt)
        #expect(weeks.map(\.start) == [Self.date("2025-12-29T00:00:00Z"), Self.date("2026-01-05T00:00:00Z"), Self.date("2026-01-12T00:00:00Z")])
        let months = try ReportingInterval.month.intervals(
            from: Self.date("2026-01-15T00:00:00Z"), to: Self.date("2026-03-01T00:00:00Z"), timeZone: .gmt)
        #expect(months.map(\.start) == [Self.date("2026-01-01T00:00:00Z"), Self.date("2026-02-01T00:00:00Z")])
        #expect(months.last?.end == Self.date("2026-03-01T00:00:00Z"))
    }

    @Test("a reversed range and more than 1,000 points are refused with a message")
    func limits() {
        #expect(throws: ReportingInterval.Problem.self) {
            try ReportingInterval.day.intervals(from: Self.date("2026-02-01T00:00:00Z"), to: Self.date("2026-01-01T00:00:00Z"), timeZone: .gmt)
        }
        #expect(throws: ReportingInterval.Problem.self) {
            try ReportingInterval.day.intervals(from: Self.date("2020-01-01T00:00:00Z"), to: Self.date("2026-01-01T00:00:00Z"), timeZone: .gmt)
        }
        #expect(
            (try? ReportingInterval.month.intervals(from: Self.date("2020-01-01T00:00:00Z"), to: Self.date("2026-01-01T00:00:00Z"), timeZone: .gmt))?
                .count == 72)
    }
}
