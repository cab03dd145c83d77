import Foundation
import SQLKit
import SubscriptionAnalytics

/// ``FigureRowQueries`` over the figure tables: every query is an index range of one app,
/// environment and group.
public struct SQLFigureRows: FigureRowQueries {
    let store: SQLStore
    let appId: String
    let environment: String
    public let calendar: FigureCalendar

    public func dayCells(group: String, series: [String], days: Range<Int>) async throws -> [FigureDayKey: Int64] {
        guard !series.isEmpty, !days.isEmpty else { return [:] }
        let (appId, environment) = (appId, environment)
        return try await store.backend.read { db in
            var query: SQLQueryString = """
                SELECT series, day, currency, denominator, value FROM figure_days
                WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND grp = \(bind: group)
                AND day >= \(bind: days.lowerBound) AND day < \(bind: days.upperBound) AND series IN (
                """
            for (position, name) in series.enumerated() { query += position == 0 ? "\(bind: name)" : ", \(bind: name)" }
            query += ") AND value <> 0"
            let rows = try await db.raw(query).all()
            var cells: [FigureDayKey: Int64] = [:]
            cells.reserveCapacity(rows.count)
            for row in rows {
                let key = FigureDayKey(
                    group: group, day: try row.int("day"), series: try row.string("series"), currency: try row.string("currency"),
                    denominator: try row.int64("denominator"))
                cells[key, default: 0] += try row.int64("value")
            }
            return cells
        }
    }

    /// The most ranges one statement sums; more short ranges (a year by day) read their days'
    /// cells instead.
    static let summedRanges = 40

    /// The longest gap between two short ranges read together as one span of days' cells.
    static let joinedGap = 31

    /// Each range as its whole months, summed from the monthly rollups, and the days at its
    /// edges, from the daily ones: a snapshot's range from the first day of the data, or a
    /// cohort's from its start, reads a cell a month rather than one a day.
    public func daySums(group: String, series: [String], ranges: [Range<Int>]) async throws -> [[FigureDayKey: Int64]] {
        var result = [[FigureDayKey: Int64]](repeating: [:], count: ranges.count)
        guard !series.isEmpty else { return result }
        var days: [Piece] = []
        var months: [Piece] = []
        for (position, range) in ranges.enumerated() where !range.isEmpty {
            let low = range.lowerBound
            let first = FigureCalendar.monthStart(ofDay: low) == low ? low : FigureCalendar.nextMonthStart(afterDay: low)
            let last = FigureCalendar.monthStart(ofDay: range.upperBound)
            guard first < last else {
                days.append(Piece(position: position, days: range))
                continue
            }
            months.append(Piece(position: position, days: first..<last))
            for edge in [low..<first, last..<range.upperBound] where !edge.isEmpty { days.append(Piece(position: position, days: edge)) }
        }
        for chunk in months.chunked(by: Self.summedRanges) {
            try await sum("figure_months", "month", group: group, series: series, pieces: chunk, into: &result)
        }
        guard days.count > Self.summedRanges else {
            if !days.isEmpty { try await sum("figure_days", "day", group: group, series: series, pieces: days, into: &result) }
            return result
        }
        // Many short pieces read their days' cells, a span of neighbouring pieces at a time:
        // SQLite would join each range with the rows through an index it builds for the statement.
        var start = 0
        while start < days.count {
            var end = start + 1
            while end < days.count, days[end].days.lowerBound - days[end - 1].days.upperBound <= Self.joinedGap { end += 1 }
            let span = Array(days[start..<end])
            let cells = try await dayCells(group: group, series: series, days: span.first!.days.lowerBound..<span.last!.days.upperBound)
            for (key, value) in cells {
                let index = span.partitioningIndex { $0.days.upperBound > key.day }
                guard index < span.count, span[index].days.contains(key.day) else { continue }
                var summed = key
                summed.day = 0
                result[span[index].position][summed, default: 0] += value
            }
            start = end
        }
        return result
    }

    /// A span of days of one of ``daySums(group:series:ranges:)``'s ranges.
    struct Piece {
        var position: Int
        var days: Range<Int>
    }

    /// Adds to `result` the cells of `table` (keyed by `column`) summed over each of `pieces` (at
    /// most ``summedRanges``) in one statement, each piece an index range of the rows.
    private func sum(
        _ table: String, _ column: String, group: String, series: [String], pieces: some Collection<Piece>,
        into result: inout [[FigureDayKey: Int64]]
    ) async throws {
        var query: SQLQueryString = "WITH ranges (position, low, high) AS (VALUES "
        for (index, piece) in pieces.enumerated() {
            query += index == 0 ? "" : ", "
            query +=
                "(\(unsafeRaw: String(piece.position)), CAST(\(bind: piece.days.lowerBound) AS BIGINT), CAST(\(bind: piece.days.upperBound) AS BIGINT))"
        }
        query += """
            ) SELECT ranges.position AS position, cells.series AS series, cells.currency AS currency,
            cells.denominator AS denominator, CAST(SUM(cells.value) AS BIGINT) AS value
            FROM ranges JOIN \(unsafeRaw: table) AS cells ON cells.app_id = \(bind: appId) AND cells.environment = \(bind: environment)
            AND cells.grp = \(bind: group) AND cells.\(unsafeRaw: column) >= ranges.low AND cells.\(unsafeRaw: column) < ranges.high
            AND cells.series IN (
            """
        for (index, name) in series.enumerated() { query += index == 0 ? "\(bind: name)" : ", \(bind: name)" }
        query += ") GROUP BY ranges.position, cells.series, cells.currency, cells.denominator"
        let statement = query
        let rows = try await store.backend.read { db in try await db.raw(statement).all() }
        for row in rows {
            let value = try row.int64("value")
            guard value != 0 else { continue }
            let key = FigureDayKey(
                group: group, day: 0, series: try row.string("series"), currency: try row.string("currency"),
                denominator: try row.int64("denominator"))
            result[try row.int("position")][key, default: 0] += value
        }
    }

    public func runs(group: String, boundariesIn windows: [ClosedRange<Date>]) async throws -> [RunBoundaries] {
        guard store.backend.dialect == .postgresql else { return try await runsWindowByWindow(group: group, windows) }
        var result = [RunBoundaries](repeating: RunBoundaries(), count: windows.count)
        for chunk in Array(windows.enumerated()).chunked(by: Self.runWindows) {
            // Each window an index range of the runs by start, and one by end.
            var query: SQLQueryString = "WITH windows (position, low, high) AS (VALUES "
            for (index, (position, window)) in chunk.enumerated() {
                query += index == 0 ? "" : ", "
                query += """
                    (\(unsafeRaw: String(position)), CAST(\(bind: window.lowerBound.millisecondsSince1970) AS BIGINT),
                    CAST(\(bind: window.upperBound.millisecondsSince1970) AS BIGINT))
                    """
            }
            query += ")"
            for (ending, column) in ["from_ms", "until_ms"].enumerated() {
                query += ending == 0 ? " " : " UNION ALL "
                query += """
                    SELECT windows.position AS position, \(unsafeRaw: String(ending)) AS ending, \(unsafeRaw: Self.runColumns("runs."))
                    FROM windows JOIN figure_runs AS runs ON runs.app_id = \(bind: appId) AND runs.environment = \(bind: environment)
                    AND runs.grp = \(bind: group) AND runs.\(unsafeRaw: column) >= windows.low AND runs.\(unsafeRaw: column) <= windows.high
                    """
            }
            let statement = query
            for row in try await store.backend.read({ db in try await db.raw(statement).all() }) {
                let run = try Self.run(row, group: group)
                let position = try row.int("position")
                if try row.int("ending") == 0 { result[position].starting.append(run) } else { result[position].ending.append(run) }
            }
        }
        return result
    }

    /// ``runs(group:boundariesIn:)`` on SQLite: two index ranges a window, each its own
    /// statement, which costs no round trip there. SQLite planned the join of the windows with
    /// the runs, their bounds bound as parameters, as a walk over the group's runs: a year by
    /// day took 124 s at a million subscriptions.
    private func runsWindowByWindow(group: String, _ windows: [ClosedRange<Date>]) async throws -> [RunBoundaries] {
        let (appId, environment) = (appId, environment)
        return try await store.backend.read { db in
            func runs(_ column: String, _ window: ClosedRange<Date>) async throws -> [FigureRun] {
                try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.runColumns("")) FROM figure_runs
                    WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND grp = \(bind: group)
                    AND \(unsafeRaw: column) >= \(bind: window.lowerBound.millisecondsSince1970)
                    AND \(unsafeRaw: column) <= \(bind: window.upperBound.millisecondsSince1970)
                    """
                ).all().map { try Self.run($0, group: group) }
            }
            var result: [RunBoundaries] = []
            for window in windows {
                result.append(RunBoundaries(starting: try await runs("from_ms", window), ending: try await runs("until_ms", window)))
            }
            return result
        }
    }

    /// The columns of a run, each named as itself, from the table named by `prefix`.
    private static func runColumns(_ prefix: String) -> String {
        ["from_ms", "until_ms", "slots", "currency", "amount", "denominator"].map { "\(prefix)\($0) AS \($0)" }.joined(separator: ", ")
    }

    private static func run(_ row: any SQLRow, group: String) throws -> FigureRun {
        let mrr = try row.decode(column: "currency", as: String?.self).map {
            MoneyPart(currency: $0, amount: try row.int64("amount"), denominator: try row.int64("denominator"))
        }
        return FigureRun(
            group: group, from: Date(millisecondsSince1970: try row.int64("from_ms")),
            until: try row.optionalInt64("until_ms").map(Date.init(millisecondsSince1970:)),
            slots: SnapshotSlots(rawValue: try row.int("slots")), mrr: mrr)
    }

    /// How many windows one statement of ``runs(group:boundariesIn:)`` reads.
    static let runWindows = 200

    public func items(group: String, from: Date, to: Date, now: Date) async throws -> [FigureItem] {
        let (appId, environment) = (appId, environment)
        let low = from.millisecondsSince1970
        let high = min(to.millisecondsSince1970, now.millisecondsSince1970 + 1)
        return try await store.backend.read { db in
            try await db.raw(
                """
                SELECT kind, at_ms, currency, amount, denominator, proceeds_amount, proceeds_denominator FROM figure_items
                WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND grp = \(bind: group)
                AND at_ms >= \(bind: low) AND at_ms < \(bind: high)
                """
            ).all().compactMap { row in
                guard let kind = FlowKind(rawValue: try row.string("kind")) else { return nil }
                let currency = try row.decode(column: "currency", as: String?.self)
                func part(_ amount: String, _ denominator: String) throws -> MoneyPart? {
                    guard let currency, let value = try row.optionalInt64(amount), let over = try row.optionalInt64(denominator) else { return nil }
                    return MoneyPart(currency: currency, amount: value, denominator: over)
                }
                return FigureItem(
                    group: group, kind: kind, at: Date(millisecondsSince1970: try row.int64("at_ms")), money: try part("amount", "denominator"),
                    proceeds: try part("proceeds_amount", "proceeds_denominator"))
            }
        }
    }

    public func churn(group: String, endedFrom from: Date, to: Date, now: Date) async throws -> [ChurnSpan] {
        let (appId, environment) = (appId, environment)
        let low = from.millisecondsSince1970
        let high = min(to.millisecondsSince1970, now.millisecondsSince1970 + 1)
        return try await store.backend.read { db in
            try await db.raw(
                """
                SELECT ended_ms, from_ms, until_ms FROM figure_churn
                WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND grp = \(bind: group)
                AND ended_ms >= \(bind: low) AND ended_ms < \(bind: high)
                """
            ).all().map { row in
                ChurnSpan(
                    group: group, ended: Date(millisecondsSince1970: try row.int64("ended_ms")),
                    from: Date(millisecondsSince1970: try row.int64("from_ms")),
                    until: try row.optionalInt64("until_ms").map(Date.init(millisecondsSince1970:)))
            }
        }
    }

    public func groups(prefix: String) async throws -> [String] {
        let (appId, environment) = (appId, environment)
        return try await store.backend.read { db in
            try await db.raw(
                """
                SELECT grp FROM figure_groups WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND chains > 0
                AND substr(grp, 1, \(unsafeRaw: String(prefix.count))) = \(bind: prefix) ORDER BY grp
                """
            ).all().map { try $0.string("grp") }
        }
    }
}
