import Foundation
import SubscriptionEngine

/// The cohort rows of one customer (docs/read-side.md), computed from the figures of the
/// customer's chains: under the group of the week and of the month the customer first paid in
/// (`cohort.week=D`, `cohort.month=D`, D the number of the interval's first day in the app's
/// time zone; `|product=…` appended for the cohorts of one product), a ``FlowKind/cohortMember``
/// item at the first paid instant, the spans in which any of the customer's chains was an
/// active paid subscription (one run each, counted once however many chains were active), and
/// the chains' sales and refunds. The cohorts are then sums of these rows like every figure.
extension ChainFigures {
    /// The group of the cohort of customers who first paid in the `period` (week or month)
    /// starting at `start`, for the whole app (`base` `""`) or one product (`product=…`).
    public static func cohortGroup(_ period: ReportingInterval, start: Date, base: String, calendar: FigureCalendar) -> String {
        "cohort.\(period.rawValue)=\(calendar.day(of: start))" + (base.isEmpty ? "" : "|" + base)
    }

    /// The cohort rows of the customer whose chains have the figures `chains`.
    public static func cohortRows(of chains: [ChainFigures], calendar: FigureCalendar) -> ChainFigures {
        var result = ChainFigures()
        let bases = Set(chains.flatMap(\.firstPaid.keys)).sorted()
        for base in bases {
            guard let first = chains.compactMap({ $0.firstPaid[base] }).min() else { continue }
            let spans = activeSpans(chains.flatMap { $0.runs.filter { $0.group == base && $0.slots.contains(.activeSubscription) } })
            let money = chains.flatMap { $0.items.filter { $0.group == base && ($0.kind == .sale || $0.kind == .refund) } }
            for period in [ReportingInterval.week, .month] {
                guard let start = try? period.intervals(from: first, to: first.addingTimeInterval(0.001), timeZone: calendar.timeZone).first?.start
                else { continue }
                let group = cohortGroup(period, start: start, base: base, calendar: calendar)
                result.items.append(FigureItem(group: group, kind: .cohortMember, at: first))
                for span in spans {
                    result.runs.append(FigureRun(group: group, from: span.from, until: span.until, slots: .activeSubscription, mrr: nil))
                }
                for item in money {
                    var copy = item
                    copy.group = group
                    result.items.append(copy)
                }
            }
        }
        return result
    }

    /// The union of `runs` as disjoint spans, in order (`until` nil: for ever).
    static func activeSpans(_ runs: [FigureRun]) -> [(from: Date, until: Date?)] {
        var spans: [(from: Date, until: Date?)] = []
        for run in runs.sorted(by: { $0.from < $1.from }) {
            if let last = spans.last, last.until.map({ run.from <= $0 }) ?? true {
                if let end = last.until {
                    spans[spans.count - 1].until = run.until.map { max($0, end) }
                }
            } else {
                spans.append((run.from, run.until))
            }
        }
        return spans
    }
}

extension SubscriptionAnalytics {
    /// The cohorts of `[from, to)` cut by `period` (weeks or months), each followed until
    /// `now`, from the sums of maintained cohort rows (``ChainFigures/cohortRows(of:calendar:)``):
    /// the same answer as ``cohorts(of:from:to:period:product:now:)`` over the customers' facts.
    public func cohorts(
        from sums: some FigureSums, from: Date, to: Date, period: ReportingInterval, product: String? = nil, now: Date
    ) async throws -> [Cohort] {
        guard period != .day else { throw ReportingInterval.Problem(description: "period must be week or month") }
        let calendar = FigureCalendar(timeZone: TimeZone(identifier: configuration.timeZone) ?? .gmt)
        let cohortIntervals = try period.intervals(from: from, to: to, timeZone: calendar.timeZone)
        let base = product.map { ChainFigures.group(.product, $0) } ?? ""
        let groups = cohortIntervals.map { ChainFigures.cohortGroup(period, start: $0.start, base: base, calendar: calendar) }
        let members = try await Array(zip(groups, cohortIntervals)).concurrentMap(width: Self.concurrentReads) { group, interval in
            try await sums.itemSums(group: group, over: [interval], now: max(now, interval.end), money: [])[0].counts[.cohortMember] ?? 0
        }
        var cells = 0
        for (interval, members) in zip(cohortIntervals, members) where members > 0 && interval.start < now {
            cells += try period.intervals(from: interval.start, to: max(now, interval.end), timeZone: calendar.timeZone).count
            guard cells <= 20_000 else {
                throw ReportingInterval.Problem(description: "more than 20000 cohort cells: ask for a shorter range or a longer period")
            }
        }
        return try await cohortIntervals.indices.concurrentMap(width: Self.concurrentReads) { index in
            try await self.cohort(
                cohortIntervals[index], members: members[index], group: groups[index], period: period, calendar: calendar, now: now,
                from: sums)
        }
    }

    /// The cohort of the customers of `group` (`members` of them) who first paid in `interval`,
    /// followed by `period` until `now`.
    private func cohort(
        _ interval: DateInterval, members: Int, group: String, period: ReportingInterval, calendar: FigureCalendar, now: Date,
        from sums: some FigureSums
    ) async throws -> Cohort {
        var cohort = Cohort(start: interval.start, end: interval.end, customers: members, periods: [])
        guard members > 0, interval.start < now else { return cohort }
        let later = try period.intervals(from: interval.start, to: max(now, interval.end), timeZone: calendar.timeZone)
        let periods = later.filter { $0.start < now }
        let ends = periods.map { min($0.end, now) }
        let active = try await sums.snapshotSums(group: group, at: ends.map { $0.addingTimeInterval(-0.001) }).map { $0.counts[0] }
        var starts = [Date.distantPast]
        starts += ends.dropLast()
        let money = try await sums.itemSums(
            group: group, over: zip(starts, ends).map { DateInterval(start: $0, end: max($0, $1)) }, now: now, money: [.revenue, .refunded])
        var net = MoneySum()
        for (position, cell) in periods.enumerated() {
            net.add(money[position].revenue)
            net.subtract(money[position].refunded)
            let (perCustomer, unconverted) = net.divided(by: Int64(members)).total(in: configuration)
            var retention = Decimal(active[position]) / Decimal(members)
            var rounded = Decimal()
            NSDecimalRound(&rounded, &retention, 4, .plain)
            cohort.periods.append(
                CohortPeriod(
                    index: position, start: cell.start, end: cell.end, active: active[position], retention: rounded,
                    revenuePerCustomer: perCustomer, unconverted: unconverted))
        }
        return cohort
    }
}
