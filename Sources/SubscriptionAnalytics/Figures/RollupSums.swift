import Foundation
import SubscriptionEngine

/// What a store of chain figures must answer for ``RollupSums``: cells of the daily rollups
/// (``ChainFigures/days(in:)`` summed over every chain), and the rows themselves in a short
/// span of time (the part of a day before an instant). Each answer costs what it returns.
public protocol FigureRowQueries: Sendable {
    /// The days of the rollups.
    var calendar: FigureCalendar { get }
    /// The rollup cells of `group` for `series` on `days`.
    func dayCells(group: String, series: [String], days: Range<Int>) async throws -> [FigureDayKey: Int64]
    /// The rollup cells of `group` for `series` summed over each of `ranges` (sorted, not
    /// overlapping), keyed with the day 0: one answer per range, whatever the days it covers.
    func daySums(group: String, series: [String], ranges: [Range<Int>]) async throws -> [[FigureDayKey: Int64]]
    /// For each of `windows` (`[from, through]`, milliseconds included), the runs of `group`
    /// that start in it, and those that end in it: one answer per window.
    func runs(group: String, boundariesIn windows: [ClosedRange<Date>]) async throws -> [RunBoundaries]
    /// The items of `group` dated in `[from, to)` and at or before `now`.
    func items(group: String, from: Date, to: Date, now: Date) async throws -> [FigureItem]
    /// The churn rows of `group` whose access ended in `[from, to)` and at or before `now`.
    func churn(group: String, endedFrom from: Date, to: Date, now: Date) async throws -> [ChurnSpan]
    /// The groups that have rows, of those starting with `prefix`.
    func groups(prefix: String) async throws -> [String]
}

extension FigureRowQueries {
    public func daySums(group: String, series: [String], ranges: [Range<Int>]) async throws -> [[FigureDayKey: Int64]] {
        try await sumsOfCells(group: group, series: series, ranges: ranges)
    }

    /// ``daySums(group:series:ranges:)`` from the cells of every day the ranges cover, summed
    /// here: what many short ranges (a year by day) cost least by.
    public func sumsOfCells(group: String, series: [String], ranges: [Range<Int>]) async throws -> [[FigureDayKey: Int64]] {
        guard let low = ranges.first?.lowerBound, let high = ranges.last?.upperBound, low < high else { return ranges.map { _ in [:] } }
        let cells = try await dayCells(group: group, series: series, days: low..<high)
        var result = [[FigureDayKey: Int64]](repeating: [:], count: ranges.count)
        for (key, value) in cells {
            let position = ranges.partitioningIndex { $0.upperBound > key.day }
            guard position < ranges.count, ranges[position].contains(key.day) else { continue }
            var summed = key
            summed.day = 0
            result[position][summed, default: 0] += value
        }
        return result
    }
}

/// The runs that start in a span of time, and those that end in it.
public struct RunBoundaries: Sendable, Equatable {
    public var starting: [FigureRun]
    public var ending: [FigureRun]

    public init(starting: [FigureRun] = [], ending: [FigureRun] = []) {
        self.starting = starting
        self.ending = ending
    }
}

/// Figure sums from daily rollups and the rows of partial days: a snapshot at the end of a
/// day is a prefix sum of days; an instant inside a day adds that day's run boundaries before
/// it; an interval's flows are its whole days plus the items of its partial edges; churn of
/// finished calendar intervals is counted in the rollups, the interval under way from its rows.
public struct RollupSums<Rows: FigureRowQueries>: FigureSums {
    public let rows: Rows

    public init(rows: Rows) {
        self.rows = rows
    }

    var calendar: FigureCalendar { rows.calendar }

    /// The day before every day: where prefix sums start.
    static var firstDay: Int { Int(Int32.min) }

    public func snapshotSums(group: String, at instants: [Date]) async throws -> [SnapshotSums] {
        guard !instants.isEmpty else { return [] }
        let order = instants.indices.sorted { instants[$0] < instants[$1] }
        // What each instant takes from the rollups: every day through `through`, summed in SQL
        // between one instant's days and the next.
        let throughs = order.map { position -> Int in
            let instant = instants[position]
            let day = calendar.day(of: instant)
            // An instant at the last millisecond of its day takes the whole day from the rollup.
            return calendar.start(ofDay: day + 1) <= instant.addingTimeInterval(0.001) ? day : day - 1
        }
        var ranges: [Range<Int>] = []
        var low = Self.firstDay
        for through in throughs {
            ranges.append(low..<max(low, through + 1))
            low = max(low, through + 1)
        }
        let series = FigureDayKey.slotSeries + [FigureDayKey.mrrSeries]
        let sums = try await rows.daySums(group: group, series: series, ranges: ranges)
        // The part of its day before each instant not at a day's end, all read at once (a year by
        // day asks for the runs at each midnight).
        let partial = order.indices.filter { throughs[$0] < calendar.day(of: instants[order[$0]]) }
        let windows = partial.map { step in
            let instant = instants[order[step]]
            return calendar.start(ofDay: calendar.day(of: instant))...instant
        }
        var boundaries = [RunBoundaries?](repeating: nil, count: order.count)
        for (step, found) in zip(partial, try await rows.runs(group: group, boundariesIn: windows)) { boundaries[step] = found }
        var result = [SnapshotSums](repeating: SnapshotSums(), count: instants.count)
        var running = SnapshotSums()
        for (step, position) in order.enumerated() {
            for (key, value) in sums[step] { running.add(key, value) }
            var total = running
            if let found = boundaries[step] {
                for run in found.starting { total.add(run) }
                for run in found.ending { total.add(run, sign: -1) }
            }
            result[position] = total
        }
        return result
    }

    public func itemSums(group: String, over intervals: [DateInterval], now: Date, money: ItemMoney) async throws -> [ItemSums] {
        // Per interval, its whole days at or before now, and the edges outside them.
        let spans: [(days: Range<Int>, edges: [(Date, Date)])?] = intervals.map { interval in
            guard interval.start <= now else { return nil }
            let end = min(interval.end, now)
            let first = calendar.firstDay(startingAtOrAfter: interval.start)
            let last = calendar.day(of: end)
            guard first < last else { return (0..<0, [(interval.start, interval.end)]) }
            return (first..<last, [(interval.start, calendar.start(ofDay: first)), (calendar.start(ofDay: last), interval.end)])
        }
        let series =
            FlowKind.allCases.map(\.rawValue)
            + [(ItemMoney.revenue, FigureDayKey.revenueSeries), (.proceeds, FigureDayKey.proceedsSeries), (.refunded, FigureDayKey.refundedSeries)]
            .filter { money.contains($0.0) }.map(\.1)
        let covered = spans.indices.filter { !(spans[$0]?.days.isEmpty ?? true) }
        let sums = try await rows.daySums(group: group, series: series, ranges: covered.map { spans[$0]!.days })
        var result = [ItemSums](repeating: ItemSums(), count: intervals.count)
        for (step, position) in covered.enumerated() {
            for (key, value) in sums[step] { result[position].add(key, value) }
        }
        for (position, span) in spans.enumerated() {
            guard let span else { continue }
            for (from, to) in span.edges where from < to {
                for item in try await rows.items(group: group, from: from, to: to, now: now) { result[position].add(item) }
            }
        }
        return result
    }

    public func churned(group: String, over intervals: [DateInterval], now: Date) async throws -> [Int] {
        var result = [Int](repeating: 0, count: intervals.count)
        guard let first = intervals.first, let last = intervals.last else { return result }
        let calendarIntervals = ReportingInterval.allCases.first {
            (try? $0.intervals(from: first.start, to: last.end, timeZone: calendar.timeZone)) == intervals
        }
        guard let kind = calendarIntervals else {
            for span in try await rows.churn(group: group, endedFrom: first.start, to: last.end, now: now) {
                if let position = intervals.position(of: span.ended), span.counts(in: intervals[position], now: now) { result[position] += 1 }
            }
            return result
        }
        let finished = intervals.indices.filter { intervals[$0].end <= now }
        if let lastFinished = finished.last {
            let days = calendar.day(of: first.start)..<(calendar.day(of: intervals[lastFinished].start) + 1)
            let cells = try await rows.dayCells(group: group, series: [FigureDayKey.churnSeries(kind)], days: days)
            var byDay: [Int: Int64] = [:]
            for (key, value) in cells { byDay[key.day, default: 0] += value }
            for position in finished { result[position] = Int(byDay[calendar.day(of: intervals[position].start)] ?? 0) }
        }
        for position in intervals.indices where intervals[position].start <= now && now < intervals[position].end {
            let interval = intervals[position]
            result[position] = try await rows.churn(group: group, endedFrom: interval.start, to: interval.end, now: now)
                .filter { $0.counts(in: interval, now: now) }.count
        }
        return result
    }

    public func groups(of breakdown: Breakdown) async throws -> [String] {
        try await rows.groups(prefix: breakdown.rawValue + "=")
    }
}

extension SnapshotSums {
    /// Adds a rollup cell of a snapshot series.
    mutating func add(_ key: FigureDayKey, _ value: Int64) {
        if key.series == FigureDayKey.mrrSeries {
            mrr.add(MoneyPart(currency: key.currency, amount: value, denominator: key.denominator))
        } else if let slot = FigureDayKey.slotSeries.firstIndex(of: key.series) {
            counts[slot] += Int(value)
        }
    }
}

extension ItemSums {
    /// Adds a rollup cell of a flow or money series.
    mutating func add(_ key: FigureDayKey, _ value: Int64) {
        switch key.series {
        case FigureDayKey.revenueSeries: revenue.add(MoneyPart(currency: key.currency, amount: value, denominator: key.denominator))
        case FigureDayKey.proceedsSeries: proceeds.add(MoneyPart(currency: key.currency, amount: value, denominator: key.denominator))
        case FigureDayKey.refundedSeries: refunded.add(MoneyPart(currency: key.currency, amount: value, denominator: key.denominator))
        default:
            if let kind = FlowKind(rawValue: key.series) { counts[kind, default: 0] += Int(value) }
        }
    }
}

/// Chain figures and their daily rollups in memory: the reference ``FigureRowQueries`` (and
/// the in-memory store's).
public struct FigureRowsInMemory: FigureRowQueries {
    public let calendar: FigureCalendar
    public private(set) var chains: [String: ChainFigures] = [:]
    public private(set) var cells: [FigureDayKey: Int64] = [:]

    public init(calendar: FigureCalendar) {
        self.calendar = calendar
    }

    /// Replaces chain `id`'s rows, and the rollups with them.
    public mutating func replace(chain id: String, with figures: ChainFigures) {
        for (key, value) in figures.dayChanges(from: chains[id] ?? ChainFigures(), in: calendar) {
            let sum = cells[key, default: 0] + value
            cells[key] = sum == 0 ? nil : sum
        }
        chains[id] = figures.runs.isEmpty && figures.items.isEmpty && figures.churn.isEmpty ? nil : figures
    }

    public func dayCells(group: String, series: [String], days: Range<Int>) -> [FigureDayKey: Int64] {
        let wanted = Set(series)
        return cells.filter { $0.key.group == group && wanted.contains($0.key.series) && days.contains($0.key.day) }
    }

    public func runs(group: String, boundariesIn windows: [ClosedRange<Date>]) -> [RunBoundaries] {
        let runs = chains.values.flatMap(\.runs).filter { $0.group == group }
        return windows.map { window in
            RunBoundaries(
                starting: runs.filter { window.contains($0.from) }, ending: runs.filter { $0.until.map(window.contains) ?? false })
        }
    }

    public func items(group: String, from: Date, to: Date, now: Date) -> [FigureItem] {
        chains.values.flatMap(\.items).filter { $0.group == group && from <= $0.at && $0.at < to && $0.at <= now }
    }

    public func churn(group: String, endedFrom from: Date, to: Date, now: Date) -> [ChurnSpan] {
        chains.values.flatMap(\.churn).filter { $0.group == group && from <= $0.ended && $0.ended < to && $0.ended <= now }
    }

    public func groups(prefix: String) -> [String] {
        Set(chains.values.flatMap(\.groups).filter { $0.hasPrefix(prefix) }).sorted()
    }
}

extension Array {
    /// The first index whose element satisfies `belongs` (a predicate false then true along the
    /// array), by binary search.
    public func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
