import AppStoreModels
import Foundation
import SQLKit
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

@testable import StorekeeperStore

/// The monthly rollups (schema 20): every month cell is the sum of its days' cells, whether
/// written with the facts (in a random order), or filled by the schema step from days already
/// there; and sums over ranges read from whole months and edge days are the sums of every day.
@Suite("Store: monthly rollups")
struct MonthlyRollupTests {
    static var sqlBackends: [TestBackend] { TestBackend.available.filter { $0 != .memory } }

    /// A store holding the figures of random chains written fact by fact in a random order.
    static func withFigures(_ backend: TestBackend, _ body: @Sendable (SQLStore) async throws -> Void) async throws {
        let shuffled = FigureStoreTests.shuffled(FigureStoreTests.facts(seed: 21, chains: 20), seed: 5)
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            var ledgers: [String: [LedgerEntry]] = [:]
            for (step, fact) in shuffled.enumerated() {
                let at = FigureStoreTests.t0 + Double(step)
                let chain = fact.originalTransactionId ?? "-"
                let entry = LedgerEntry(
                    appId: "app", fact: fact, customerId: FigureStoreTests.customer(of: chain), source: .notificationV2, recordedAt: at)
                ledgers[chain, default: []].append(entry)
                var changeset = Changeset(appId: "app", at: at, entries: [entry])
                changeset.figures = [FigureStoreTests.update(ledgers[chain]!, chain: chain, facts: ledgers[chain]!.count, at: at)]
                try await store.apply(changeset)
            }
            try await body(store)
        }
    }

    /// The month cells as stored, and as the sums of the day cells by ``FigureCalendar/monthStart(ofDay:)``.
    static func monthsAndSummedDays(_ store: SQLStore) async throws -> (stored: [String: Int64], summed: [String: Int64]) {
        try await store.backend.read { db in
            func cells(_ table: String, _ column: String) async throws -> [(key: String, day: Int, value: Int64)] {
                try await db.raw(
                    """
                    SELECT app_id, environment, grp, series, \(unsafeRaw: column) AS day, currency, denominator, value FROM \(unsafeRaw: table)
                    """
                ).all().map { row in
                    let key = try ["app_id", "environment", "grp", "series", "currency"].map { try row.string($0) }.joined(separator: "|")
                    return (key + "|\(try row.int64("denominator"))", try row.int("day"), try row.int64("value"))
                }
            }
            var stored: [String: Int64] = [:]
            for cell in try await cells("figure_months", "month") where cell.value != 0 {
                stored["\(cell.key)@\(cell.day)", default: 0] += cell.value
            }
            var summed: [String: Int64] = [:]
            for cell in try await cells("figure_days", "day") {
                summed["\(cell.key)@\(FigureCalendar.monthStart(ofDay: cell.day))", default: 0] += cell.value
            }
            return (stored, summed.filter { $0.value != 0 })
        }
    }

    @Test("facts written in a random order keep every month cell the sum of its days", arguments: sqlBackends)
    func maintained(backend: TestBackend) async throws {
        try await Self.withFigures(backend) { store in
            let (stored, summed) = try await Self.monthsAndSummedDays(store)
            #expect(summed.count > 50)
            #expect(stored == summed, "\(backend)")
        }
    }

    @Test("schema 20 fills the months from the days already there, leap days and days before 1970 included", arguments: sqlBackends)
    func filledBySchemaStep(backend: TestBackend) async throws {
        try await Self.withFigures(backend) { store in
            try await store.backend.transaction { db in
                // Days where calendars go wrong: before 1970, a leap day, the ends of years.
                for (day, value) in [(-1, 3), (-31, 4), (-32, 5), (19_782, 6), (19_783, 7), (20_453, 8), (20_454, 9), (0, 10)] {
                    try await db.raw(
                        """
                        INSERT INTO figure_days (app_id, environment, grp, series, day, currency, denominator, value)
                        VALUES ('app', 'Production', 'edge', 'revenue', \(bind: day), 'USD', 1, \(bind: Int64(value)))
                        """
                    ).run()
                }
                try await db.raw("DROP TABLE figure_months").run()
                try await db.raw("DELETE FROM schema_migrations WHERE version >= 20").run()
            }
            #expect(try await store.migrate() == Array(20...SQLStore.latestSchemaVersion))
            let (stored, summed) = try await Self.monthsAndSummedDays(store)
            #expect(stored == summed, "\(backend)")
            // -32 is 1969-11-30; -31 and -1 are December 1969; 19,782 is 2024-02-29.
            #expect(stored["app|Production|edge|revenue|USD|1@-61"] == 5)
            #expect(stored["app|Production|edge|revenue|USD|1@-31"] == 7)
            #expect(stored["app|Production|edge|revenue|USD|1@19754"] == 6)
            #expect(stored["app|Production|edge|revenue|USD|1@19783"] == 7)
            #expect(stored["app|Production|edge|revenue|USD|1@20423"] == 8)
            #expect(stored["app|Production|edge|revenue|USD|1@20454"] == 9)
        }
    }

    @Test("sums over random ranges from months and edge days are the sums of every day", arguments: sqlBackends)
    func rangesFromMonths(backend: TestBackend) async throws {
        try await Self.withFigures(backend) { store in
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: FigureStoreTests.zone)!)
            let rows = store.figureRows(appId: "app", environment: "Production", calendar: calendar)
            let first = calendar.day(of: FigureStoreTests.t0)
            let series = FigureDayKey.slotSeries + [FigureDayKey.mrrSeries, FigureDayKey.revenueSeries, FlowKind.sale.rawValue]
            var random = SplitMix64(seed: 17)
            func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
            var checked = 0
            for round in 0..<40 {
                // Sorted ranges, some touching, some apart; the first from the day before every
                // day in half of the rounds; a few (cohorts, months) or many (a year by day).
                var ranges: [Range<Int>] = []
                var low = round % 2 == 0 ? Int(Int32.min) : first - 40 + next(80)
                for _ in 0..<(round % 4 == 3 ? 60 + next(300) : 1 + next(45)) {
                    let high = (low == Int(Int32.min) ? first - 20 + next(60) : low) + 1 + next(round % 4 == 3 ? 3 : 120)
                    ranges.append(low..<high)
                    low = high + (next(3) == 0 ? next(40) : 0)
                }
                for group in ["", "product=pro.monthly", "storefront=FRA"] {
                    // Cells that sum to nothing may be left out of either answer.
                    let sums = try await rows.daySums(group: group, series: series, ranges: ranges).map { $0.filter { $0.value != 0 } }
                    let expected = try await rows.sumsOfCells(group: group, series: series, ranges: ranges).map { $0.filter { $0.value != 0 } }
                    #expect(sums == expected, "\(backend): round \(round), \(group)")
                    checked += expected.filter { !$0.isEmpty }.count
                }
            }
            #expect(checked > 500)
        }
    }

    @Test("run boundaries in many windows (on PostgreSQL a few hundred a statement) are the runs each window holds", arguments: sqlBackends)
    func runBoundariesInWindows(backend: TestBackend) async throws {
        try await Self.withFigures(backend) { store in
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: FigureStoreTests.zone)!)
            let rows = store.figureRows(appId: "app", environment: "Production", calendar: calendar)
            let stored = try await store.backend.read { db in
                try await db.raw("SELECT grp, from_ms, until_ms, slots, currency, amount, denominator FROM figure_runs").all().map { row in
                    FigureRun(
                        group: try row.string("grp"), from: Date(millisecondsSince1970: try row.int64("from_ms")),
                        until: try row.optionalInt64("until_ms").map(Date.init(millisecondsSince1970:)),
                        slots: SnapshotSlots(rawValue: try row.int("slots")),
                        mrr: try row.optionalString("currency").map {
                            MoneyPart(currency: $0, amount: try row.int64("amount"), denominator: try row.int64("denominator"))
                        })
                }
            }
            #expect(stored.count > 20)
            var random = SplitMix64(seed: 29)
            // The part of its day before an instant (what a snapshot reads), the instant a run's
            // start or end to the millisecond, or a random one; a few wide windows.
            let edges = stored.flatMap { [$0.from] + ($0.until.map { [$0] } ?? []) }
            let windows = (0..<(2 * MonthlyRollupTests.windowsPerStatement + 50)).map { index -> ClosedRange<Date> in
                let instant =
                    index % 3 == 0
                    ? FigureStoreTests.t0.addingTimeInterval(Double(Int.random(in: -86_400...(400 * 86_400), using: &random)))
                    : edges[Int.random(in: 0..<edges.count, using: &random)].addingTimeInterval(index % 3 == 1 ? 0 : -0.001)
                guard index % 50 != 7 else { return instant.addingTimeInterval(-90 * 86_400)...instant }
                return calendar.start(ofDay: calendar.day(of: instant))...instant
            }
            func counted(_ runs: [FigureRun]) -> [FigureRun: Int] { runs.reduce(into: [:]) { $0[$1, default: 0] += 1 } }
            var found = 0
            for group in ["", "product=pro.monthly", "storefront=FRA"] {
                let answers = try await rows.runs(group: group, boundariesIn: windows)
                #expect(answers.count == windows.count)
                for (window, answer) in zip(windows, answers) {
                    let mine = stored.filter { $0.group == group }
                    #expect(counted(answer.starting) == counted(mine.filter { window.contains($0.from) }), "\(backend) \(group) \(window)")
                    #expect(counted(answer.ending) == counted(mine.filter { $0.until.map(window.contains) ?? false }), "\(backend) \(group)")
                    found += answer.starting.count + answer.ending.count
                }
            }
            #expect(found > 200)
        }
    }

    static var windowsPerStatement: Int { SQLFigureRows.runWindows }
}
