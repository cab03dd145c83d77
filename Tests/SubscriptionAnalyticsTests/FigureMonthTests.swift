import Foundation
import SubscriptionAnalytics
import Testing

/// The months the monthly rollups are keyed by, from day numbers alone, against Foundation's
/// Gregorian calendar.
@Suite("Figure calendar: months of day numbers")
struct FigureMonthTests {
    static let gregorian: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    /// Day `day`'s month start and the next month's, by Foundation.
    static func expected(_ day: Int) -> (start: Int, next: Int) {
        let date = Date(timeIntervalSince1970: Double(day) * 86_400)
        let start = gregorian.dateInterval(of: .month, for: date)!
        return (Int(start.start.timeIntervalSince1970 / 86_400), Int((start.end.timeIntervalSince1970 / 86_400).rounded()))
    }

    @Test("every day from 1900 to 2100 has Foundation's month start and next month start")
    func everyDay() {
        var wrong: [Int] = []
        for day in -25_567...47_482 {
            let expected = Self.expected(day)
            if FigureCalendar.monthStart(ofDay: day) != expected.start || FigureCalendar.nextMonthStart(afterDay: day) != expected.next {
                wrong.append(day)
            }
        }
        #expect(wrong.isEmpty, "first wrong days: \(wrong.prefix(5))")
    }

    @Test("known days: leap days, year ends, before 1970")
    func knownDays() {
        // 2024-02-29 is day 19782; its month starts on 2024-02-01 (19754), the next on 2024-03-01 (19783).
        #expect(FigureCalendar.monthStart(ofDay: 19_782) == 19_754)
        #expect(FigureCalendar.nextMonthStart(afterDay: 19_782) == 19_783)
        // 2025-12-31 (20453) → 2025-12-01 (20423), next 2026-01-01 (20454).
        #expect(FigureCalendar.monthStart(ofDay: 20_453) == 20_423)
        #expect(FigureCalendar.nextMonthStart(afterDay: 20_453) == 20_454)
        #expect(FigureCalendar.monthStart(ofDay: 20_454) == 20_454)
        // 1969-12-31 (-1) → 1969-12-01 (-31), next 1970-01-01 (0).
        #expect(FigureCalendar.monthStart(ofDay: -1) == -31)
        #expect(FigureCalendar.nextMonthStart(afterDay: -1) == 0)
    }

    @Test("the day before every day (where prefix sums start) has a month around it")
    func farPast() {
        let day = Int(Int32.min)
        let start = FigureCalendar.monthStart(ofDay: day)
        let next = FigureCalendar.nextMonthStart(afterDay: day)
        #expect(start <= day && day < next && next - start >= 28 && next - start <= 31)
        #expect(FigureCalendar.monthStart(ofDay: next) == next)
    }
}
