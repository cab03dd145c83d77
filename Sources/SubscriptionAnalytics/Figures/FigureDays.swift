import AppStoreModels
import Foundation
import SubscriptionEngine

/// Days in an app's reporting time zone, numbered from 1970-01-01 (local), as the daily
/// rollups of chain figures are keyed.
public struct FigureCalendar: Sendable, Hashable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The number of the local day that contains `date`.
    public func day(of date: Date) -> Int {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        return Int((local / 86_400).rounded(.down))
    }

    /// The first instant of local day `day`.
    public func start(ofDay day: Int) -> Date {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        // Noon of that day is in it whatever the offset; its day's start is the answer.
        let noon = Date(timeIntervalSince1970: Double(day) * 86_400 + 43_200)
        let local = noon.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: noon)))
        return calendar.startOfDay(for: local)
    }

    /// The first day whose start is at or after `date`.
    public func firstDay(startingAtOrAfter date: Date) -> Int {
        let day = day(of: date)
        return start(ofDay: day) < date ? day + 1 : day
    }

    /// The number of the first day of the month (proleptic Gregorian) that contains day `day`,
    /// as the monthly rollups are keyed. Days are local already: no time zone is involved.
    public static func monthStart(ofDay day: Int) -> Int {
        day - (CivilCalendar.date(daysSinceEpoch: day).day - 1)
    }

    /// The number of the first day of the month after the one that contains day `day`.
    public static func nextMonthStart(afterDay day: Int) -> Int {
        let date = CivilCalendar.date(daysSinceEpoch: day)
        return date.month == 12
            ? CivilCalendar.daysSinceEpoch(year: date.year + 1, month: 1, day: 1)
            : CivilCalendar.daysSinceEpoch(year: date.year, month: date.month + 1, day: 1)
    }
}

/// One cell of the daily rollups: a group's series on a day, per currency and denominator for
/// money (`""` and 1 for counts).
public struct FigureDayKey: Sendable, Hashable, Comparable {
    public var group: String
    public var day: Int
    public var series: String
    public var currency: String
    public var denominator: Int64

    public init(group: String, day: Int, series: String, currency: String = "", denominator: Int64 = 1) {
        self.group = group
        self.day = day
        self.series = series
        self.currency = currency
        self.denominator = denominator
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.group, a.day, a.series, a.currency, a.denominator) < (b.group, b.day, b.series, b.currency, b.denominator)
    }

    /// The series of the snapshot slots (in ``SnapshotSlots/ordered``'s order) and of MRR.
    public static let slotSeries = SnapshotSlots.ordered.indices.map { "slot.\($0)" }
    public static let mrrSeries = "mrr"
    /// The series of money items.
    public static let revenueSeries = "revenue"
    public static let proceedsSeries = "proceeds"
    public static let refundedSeries = "refunded"

    /// The series of churn counted for finished intervals of `interval`.
    public static func churnSeries(_ interval: ReportingInterval) -> String { "churn." + interval.rawValue }
}

extension ChainFigures {
    /// What these rows add to the daily rollups of `calendar`: each run +1 on the day it starts
    /// and −1 on the day it ends (MRR likewise), each item on its day, each churn row on the
    /// first day of the day, week and month its access ended in when it holds at that
    /// interval's end.
    public func days(in calendar: FigureCalendar) -> [FigureDayKey: Int64] {
        var result: [FigureDayKey: Int64] = [:]
        func add(_ key: FigureDayKey, _ value: Int64) { result[key, default: 0] += value }
        for run in runs {
            for (date, sign) in [(run.from, Int64(1)), (run.until, Int64(-1))] {
                guard let date else { continue }
                let day = calendar.day(of: date)
                for (slot, flag) in SnapshotSlots.ordered.enumerated() where run.slots.contains(flag) {
                    add(FigureDayKey(group: run.group, day: day, series: FigureDayKey.slotSeries[slot]), sign)
                }
                if let mrr = run.mrr {
                    add(
                        FigureDayKey(
                            group: run.group, day: day, series: FigureDayKey.mrrSeries, currency: mrr.currency, denominator: mrr.denominator),
                        sign * mrr.amount)
                }
            }
        }
        for item in items {
            let day = calendar.day(of: item.at)
            add(FigureDayKey(group: item.group, day: day, series: item.kind.rawValue), 1)
            let money: [(String, MoneyPart?)] =
                switch item.kind {
                case .sale: [(FigureDayKey.revenueSeries, item.money), (FigureDayKey.proceedsSeries, item.proceeds)]
                case .refund: [(FigureDayKey.refundedSeries, item.money)]
                default: []
                }
            for case (let series, let part?) in money {
                add(FigureDayKey(group: item.group, day: day, series: series, currency: part.currency, denominator: part.denominator), part.amount)
            }
        }
        for span in churn {
            for interval in ReportingInterval.allCases {
                guard
                    let containing = try? interval.intervals(from: span.ended, to: span.ended.addingTimeInterval(0.001), timeZone: calendar.timeZone)
                        .first,
                    span.counts(in: containing, now: .distantFuture)
                else { continue }
                add(FigureDayKey(group: span.group, day: calendar.day(of: containing.start), series: FigureDayKey.churnSeries(interval)), 1)
            }
        }
        return result.filter { $0.value != 0 }
    }

    /// What replacing `old` rows with these changes in the daily rollups.
    public func dayChanges(from old: ChainFigures, in calendar: FigureCalendar) -> [FigureDayKey: Int64] {
        var result = days(in: calendar)
        for (key, value) in old.days(in: calendar) { result[key, default: 0] -= value }
        return result.filter { $0.value != 0 }
    }

    /// The groups these rows have.
    public var groups: Set<String> {
        Set(runs.map(\.group)).union(items.map(\.group)).union(churn.map(\.group))
    }
}
