import Foundation
import SQLKit
import SubscriptionAnalytics

extension SQLStore {
    /// Writes chain figures inside the caller's transaction (docs/read-side.md): for each chain
    /// whose ledger still has the rows the figures were computed from, the difference from the
    /// chain's stored figures goes to the daily rollups and the groups, and its rows are
    /// replaced. Returns the chains whose figures were not written (another intake of the chain
    /// came between): their retry jobs are added instead.
    static func writeFigures(_ updates: [FigureUpdate], appId: String, dialect: SQLStoreDialect, _ db: any SQLDatabase) async throws {
        var stale: [JobRecord] = []
        // Updates come one environment at a time from each caller; group them so.
        for (_, part) in Dictionary(grouping: updates, by: \.environment).sorted(by: { $0.key < $1.key }) {
            try await writeFigures(part, appId: appId, dialect: dialect, stale: &stale, db)
        }
        for job in stale { try await addJob(job, appId: appId, db) }
    }

    /// Writes the figures of chains in one environment, then the cohort rows of their customers.
    private static func writeFigures(
        _ updates: [FigureUpdate], appId: String, dialect: SQLStoreDialect, stale: inout [JobRecord], _ db: any SQLDatabase
    ) async throws {
        var owners = Set<String>()
        var calendar: FigureCalendar?
        var environment: String?
        for update in try await writeNewDocuments(updates, appId: appId, db) {
            if update.rewriteOnly {
                // Written with the new documents; its customer's cohort rows are written here.
                if let owner = update.customer { owners.insert(owner) }
                (calendar, environment) = (update.calendar, update.environment)
                continue
            }
            let key = (appId, update.environment, update.chain)
            // The chain's document row, locked until the transaction ends (PostgreSQL; SQLite
            // has one writer), so two intakes of one chain take turns here.
            let stored = try await lockedDocument(key, timeZone: update.timeZone, dialect: dialect, db)
            let facts = try await db.raw(
                """
                SELECT COUNT(*) AS facts FROM (
                SELECT id FROM ledger WHERE app_id = \(bind: appId) AND original_transaction_id = \(bind: update.chain)
                UNION
                SELECT id FROM ledger WHERE app_id = \(bind: appId) AND kind = \(bind: "revocation") AND transaction_id IN
                (SELECT transaction_id FROM ledger WHERE app_id = \(bind: appId) AND original_transaction_id = \(bind: update.chain))) AS chain
                """
            ).first()?.int("facts")
            guard facts == update.facts else {
                stale.append(update.retry)
                continue
            }
            let old = try document(stored)
            if let owner = try stored?.decode(column: "customer", as: String?.self) { owners.insert(owner) }
            if let owner = update.customer { owners.insert(owner) }
            try await replaceDocument(
                old: old, new: update.figures, key: key, calendar: update.calendar, chain: (update.facts, update.customer), db)
            calendar = update.calendar
            environment = update.environment
        }
        // The cohort rows of every customer whose chains changed, from all of the customer's
        // chains as they now are (their document rows locked first, as a chain's are).
        if let calendar, let environment {
            for owner in owners.sorted() {
                let key = (appId, environment, FigureUpdate.cohortKey(owner))
                let stored = try await lockedDocument(key, timeZone: calendar.timeZone.identifier, dialect: dialect, db)
                let chains = try await db.raw(
                    """
                    SELECT rows FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND customer = \(bind: owner)
                    """
                ).all().map { try document($0) }
                try await replaceDocument(
                    old: try document(stored), new: ChainFigures.cohortRows(of: chains, calendar: calendar), key: key, calendar: calendar, db)
            }
        }
    }

    /// The document row of `key`, made when missing and locked until the transaction ends.
    private static func lockedDocument(
        _ key: (String, String, String), timeZone: String, dialect: SQLStoreDialect, _ db: any SQLDatabase
    ) async throws -> (any SQLRow)? {
        try await db.raw(
            """
            INSERT INTO figure_chains (app_id, environment, chain, facts, time_zone, rows)
            VALUES (\(bind: key.0), \(bind: key.1), \(bind: key.2), \(bind: 0), \(bind: timeZone), \(bind: "{}"))
            ON CONFLICT (app_id, environment, chain) DO NOTHING
            """
        ).run()
        let lock: SQLQueryString = dialect == .postgresql ? " FOR UPDATE" : ""
        return try await db.raw(
            "SELECT rows, customer FROM figure_chains WHERE app_id = \(bind: key.0) AND environment = \(bind: key.1) AND chain = \(bind: key.2)"
                + lock
        ).first()
    }

    static func document(_ row: (any SQLRow)?) throws -> ChainFigures {
        let text = try row?.string("rows") ?? "{}"
        return text == "{}" ? ChainFigures() : try StoreCoding.decode(ChainFigures.self, from: text, column: "rows")
    }

    /// Replaces the rows of document `key` (a chain's or a customer's cohort rows) with `new`,
    /// and adds the difference from `old` to the daily rollups and the groups.
    /// A chain's document also records how many facts it was computed from and its customer
    /// (`chain`), whether or not its rows changed.
    private static func replaceDocument(
        old: ChainFigures, new: ChainFigures, key: (String, String, String), calendar: FigureCalendar,
        chain: (facts: Int, customer: String?)? = nil, _ db: any SQLDatabase
    ) async throws {
        let document: SQLQueryString = " WHERE app_id = \(bind: key.0) AND environment = \(bind: key.1) AND chain = \(bind: key.2)"
        guard old != new else {
            if let chain {
                try await db.raw("UPDATE figure_chains SET facts = \(bind: chain.facts), customer = \(bind: chain.customer)" + document).run()
            }
            return
        }
        try await addDays(new.dayChanges(from: old, in: calendar), key: key, db)
        try await countGroups(old: old.groups, new: new.groups, key: key, db)
        try await replaceRows(new, hadRows: old != ChainFigures(), key: key, db)
        var update: SQLQueryString = "UPDATE figure_chains SET rows = \(bind: try StoreCoding.encode(new))"
        if let chain { update += ", facts = \(bind: chain.facts), customer = \(bind: chain.customer)" }
        try await db.raw(update + document).run()
    }

    private static func addDays(_ changes: [FigureDayKey: Int64], key: (String, String, String), _ db: any SQLDatabase) async throws {
        for chunk in changes.sorted(by: { $0.key < $1.key }).chunked(by: 200) {
            var query: SQLQueryString = "INSERT INTO figure_days (app_id, environment, grp, series, day, currency, denominator, value) VALUES"
            for (position, (cell, value)) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: key.0), \(bind: key.1), \(bind: cell.group), \(bind: cell.series), \(bind: cell.day), \(bind: cell.currency),
                    \(bind: cell.denominator), \(bind: value))
                    """
            }
            query += """
                 ON CONFLICT (app_id, environment, grp, series, day, currency, denominator)
                DO UPDATE SET value = figure_days.value + excluded.value
                """
            try await db.raw(query).run()
        }
    }

    private static func countGroups(old: Set<String>, new: Set<String>, key: (String, String, String), _ db: any SQLDatabase) async throws {
        let changes = new.subtracting(old).map { ($0, 1) } + old.subtracting(new).map { ($0, -1) }
        guard !changes.isEmpty else { return }
        var query: SQLQueryString = "INSERT INTO figure_groups (app_id, environment, grp, chains) VALUES"
        for (position, (group, change)) in changes.sorted(by: { $0.0 < $1.0 }).enumerated() {
            query += (position == 0 ? " " : ", ") + "(\(bind: key.0), \(bind: key.1), \(bind: group), \(bind: change))"
        }
        query += " ON CONFLICT (app_id, environment, grp) DO UPDATE SET chains = figure_groups.chains + excluded.chains"
        try await db.raw(query).run()
    }

    private static func replaceRows(_ figures: ChainFigures, hadRows: Bool, key: (String, String, String), _ db: any SQLDatabase) async throws {
        for table in ["figure_runs", "figure_items", "figure_churn"] where hadRows {
            try await db.raw(
                "DELETE FROM \(unsafeRaw: table) WHERE app_id = \(bind: key.0) AND environment = \(bind: key.1) AND chain = \(bind: key.2)"
            ).run()
        }
        try await insertRows([(key.2, figures)], appId: key.0, environment: key.1, db)
    }

    /// Inserts the rows of documents (`chain`: a chain's id or a customer's cohort key), many
    /// rows a statement.
    private static func insertRows(
        _ documents: [(chain: String, figures: ChainFigures)], appId: String, environment: String, _ db: any SQLDatabase
    )
        async throws
    {
        let runs = documents.flatMap { document in document.figures.runs.map { (document.chain, $0) } }
        for chunk in runs.chunked(by: 200) {
            var query: SQLQueryString =
                "INSERT INTO figure_runs (app_id, environment, grp, chain, from_ms, until_ms, slots, currency, amount, denominator) VALUES"
            for (position, (chain, run)) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: appId), \(bind: environment), \(bind: run.group), \(bind: chain), \(bind: run.from.millisecondsSince1970),
                    \(bind: run.until?.millisecondsSince1970), \(bind: run.slots.rawValue), \(bind: run.mrr?.currency), \(bind: run.mrr?.amount),
                    \(bind: run.mrr?.denominator))
                    """
            }
            try await db.raw(query).run()
        }
        let items = documents.flatMap { document in document.figures.items.map { (document.chain, $0) } }
        for chunk in items.chunked(by: 200) {
            var query: SQLQueryString = """
                INSERT INTO figure_items (app_id, environment, grp, chain, kind, at_ms, currency, amount, denominator, proceeds_amount,
                proceeds_denominator) VALUES
                """
            for (position, (chain, item)) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: appId), \(bind: environment), \(bind: item.group), \(bind: chain), \(bind: item.kind.rawValue),
                    \(bind: item.at.millisecondsSince1970), \(bind: item.money?.currency ?? item.proceeds?.currency), \(bind: item.money?.amount),
                    \(bind: item.money?.denominator), \(bind: item.proceeds?.amount), \(bind: item.proceeds?.denominator))
                    """
            }
            try await db.raw(query).run()
        }
        let churn = documents.flatMap { document in document.figures.churn.map { (document.chain, $0) } }
        for chunk in churn.chunked(by: 200) {
            var query: SQLQueryString = "INSERT INTO figure_churn (app_id, environment, grp, chain, ended_ms, from_ms, until_ms) VALUES"
            for (position, (chain, span)) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: appId), \(bind: environment), \(bind: span.group), \(bind: chain), \(bind: span.ended.millisecondsSince1970),
                    \(bind: span.from.millisecondsSince1970), \(bind: span.until?.millisecondsSince1970))
                    """
            }
            try await db.raw(query).run()
        }
    }

    /// Writes, all at once, the documents of chains that have none yet (a build, a seed) and
    /// of their customers who have none either: their rows in multi-row statements, their
    /// rollup cells and group counts summed first. Returns the updates it did not write (the
    /// chain has a document, its ledger count differs, or its customer has other chains): the
    /// caller writes those one at a time.
    private static func writeNewDocuments(_ updates: [FigureUpdate], appId: String, _ db: any SQLDatabase) async throws -> [FigureUpdate] {
        guard updates.count > 1, let first = updates.first else { return updates }
        let (environment, calendar) = (first.environment, first.calendar)
        func strings(_ values: [String]) -> SQLQueryString {
            var list: SQLQueryString = ""
            for (position, value) in values.enumerated() { list += (position == 0 ? "" : ", ") + "\(bind: value)" }
            return list
        }
        var documented = Set<String>()
        var counts: [String: Int] = [:]
        var owned = Set<String>()
        let owners = Set(updates.compactMap(\.customer)).sorted()
        for part in updates.map(\.chain).chunked(by: 500) {
            let chains = strings(Array(part))
            for row in try await db.raw(
                "SELECT chain FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND chain IN (" + chains + ")"
            ).all() { documented.insert(try row.string("chain")) }
            for row in try await db.raw(
                """
                SELECT original_transaction_id AS chain, COUNT(*) AS facts FROM ledger WHERE app_id = \(bind: appId)
                AND original_transaction_id IN (
                """ + chains + ") GROUP BY original_transaction_id"
            ).all() { counts[try row.string("chain")] = try row.int("facts") }
        }
        for part in owners.map(FigureUpdate.cohortKey).chunked(by: 500) {
            // A customer whose cohort rows exist (every chain of it moved away) is written one at a time.
            for row in try await db.raw(
                "SELECT chain FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND chain IN ("
                    + strings(Array(part)) + ")"
            ).all() { owned.insert(String(try row.string("chain").dropFirst(FigureUpdate.cohortKey("").count))) }
        }
        for part in owners.chunked(by: 500) {
            for row in try await db.raw(
                """
                SELECT DISTINCT customer FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment)
                AND customer IN (
                """ + strings(Array(part)) + ")"
            ).all() { owned.insert(try row.string("customer")) }
        }
        // A chain whose revocations name only its transactions counts more facts than the
        // ledger's rows with its id: the one-at-a-time path counts those exactly.
        let fresh = updates.filter { !documented.contains($0.chain) && counts[$0.chain] == $0.facts && $0.chain != "-" }
        let later = updates.filter { update in !fresh.contains { $0.chain == update.chain } }
        // Customers whose chains are all among the fresh ones get their cohort rows here too.
        let elsewhere = Set(later.compactMap(\.customer)).union(owned)
        var byOwner: [String: [ChainFigures]] = [:]
        for update in fresh { if let owner = update.customer, !elsewhere.contains(owner) { byOwner[owner, default: []].append(update.figures) } }
        var documents: [(chain: String, figures: ChainFigures)] = fresh.map { ($0.chain, $0.figures) }
        documents += byOwner.sorted { $0.key < $1.key }.map {
            (FigureUpdate.cohortKey($0.key), ChainFigures.cohortRows(of: $0.value, calendar: calendar))
        }
        var cells: [FigureDayKey: Int64] = [:]
        var groups: [String: Int] = [:]
        for document in documents {
            for (key, value) in document.figures.days(in: calendar) { cells[key, default: 0] += value }
            for group in document.figures.groups { groups[group, default: 0] += 1 }
        }
        let customers = Dictionary(fresh.map { ($0.chain, $0.customer) }, uniquingKeysWith: { first, _ in first })
        let facts = Dictionary(fresh.map { ($0.chain, $0.facts) }, uniquingKeysWith: { first, _ in first })
        for chunk in documents.chunked(by: 100) {
            var query: SQLQueryString = "INSERT INTO figure_chains (app_id, environment, chain, facts, time_zone, rows, customer) VALUES"
            for (position, document) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: appId), \(bind: environment), \(bind: document.chain), \(bind: facts[document.chain] ?? 0),
                    \(bind: first.timeZone), \(bind: try StoreCoding.encode(document.figures)), \(bind: customers[document.chain] ?? nil))
                    """
            }
            try await db.raw(query).run()
        }
        try await insertRows(documents, appId: appId, environment: environment, db)
        try await addDays(cells, key: (appId, environment, ""), db)
        for chunk in groups.sorted(by: { $0.key < $1.key }).chunked(by: 200) {
            var query: SQLQueryString = "INSERT INTO figure_groups (app_id, environment, grp, chains) VALUES"
            for (position, (group, count)) in chunk.enumerated() {
                query += (position == 0 ? " " : ", ") + "(\(bind: appId), \(bind: environment), \(bind: group), \(bind: count))"
            }
            query += " ON CONFLICT (app_id, environment, grp) DO UPDATE SET chains = figure_groups.chains + excluded.chains"
            try await db.raw(query).run()
        }
        // The customers of fresh chains who have other chains: their cohort rows one at a time.
        return later
            + fresh.filter { $0.customer.map(elsewhere.contains) ?? false }.map { update in
                var rewrite = update
                rewrite.rewriteOnly = true
                return rewrite
            }
    }

    public func figureState(appId: String, environment: String) async throws -> FigureState? {
        try await backend.read { db in
            try await db.raw(
                "SELECT settings, resume_after, complete FROM figure_state WHERE app_id = \(bind: appId) AND environment = \(bind: environment)"
            ).first().map {
                FigureState(
                    settings: try $0.string("settings"), resumeAfter: try $0.decode(column: "resume_after", as: String?.self),
                    complete: try $0.int("complete") == 1)
            }
        }
    }

    public func resetFigures(appId: String, environment: String, settings: String) async throws {
        try await backend.transaction { db in
            for table in ["figure_chains", "figure_runs", "figure_items", "figure_churn", "figure_days", "figure_groups", "figure_state"] {
                try await db.raw("DELETE FROM \(unsafeRaw: table) WHERE app_id = \(bind: appId) AND environment = \(bind: environment)").run()
            }
            try await db.raw(
                """
                INSERT INTO figure_state (app_id, environment, settings, resume_after, complete)
                VALUES (\(bind: appId), \(bind: environment), \(bind: settings), NULL, 0)
                """
            ).run()
        }
    }

    public func recordFigureProgress(appId: String, environment: String, settings: String, resumeAfter: String?, complete: Bool) async throws {
        try await backend.transaction { db in
            try await db.raw(
                """
                UPDATE figure_state SET resume_after = \(bind: resumeAfter), complete = \(bind: complete ? 1 : 0)
                WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND settings = \(bind: settings)
                """
            ).run()
        }
    }

    public func chainFigures(appId: String, environment: String, customers: [String]) async throws -> [String: [ChainFigures]] {
        var result: [String: [ChainFigures]] = [:]
        for part in Array(Set(customers)).sorted().chunked(by: 500) {
            let rows = try await backend.read { db in
                var query: SQLQueryString = """
                    SELECT customer, rows FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND customer IN (
                    """
                for (position, customer) in part.enumerated() { query += (position == 0 ? "" : ", ") + "\(bind: "customer:" + customer)" }
                query += ")"
                return try await db.raw(query).all().map { (try $0.string("customer"), try Self.document($0)) }
            }
            for (owner, figures) in rows { result[String(owner.dropFirst("customer:".count)), default: []].append(figures) }
        }
        return result
    }

    /// The figure rows of `appId` in `environment`, read through this store.
    public func figureRows(appId: String, environment: String, calendar: FigureCalendar) -> SQLFigureRows {
        SQLFigureRows(store: self, appId: appId, environment: environment, calendar: calendar)
    }
}

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
            var cells: [FigureDayKey: Int64] = [:]
            for row in try await db.raw(query).all() {
                let key = FigureDayKey(
                    group: group, day: try row.int("day"), series: try row.string("series"), currency: try row.string("currency"),
                    denominator: try row.int64("denominator"))
                cells[key, default: 0] += try row.int64("value")
            }
            return cells
        }
    }

    /// The most ranges one statement sums (cohorts, weeks and months); more read the cells.
    static let summedRanges = 40

    public func daySums(group: String, series: [String], ranges: [Range<Int>]) async throws -> [[FigureDayKey: Int64]] {
        // Many short ranges (a year by day) read their days' cells: SQLite would join each range
        // with the rows through an index it builds for the statement.
        guard ranges.count <= Self.summedRanges else { return try await sumsOfCells(group: group, series: series, ranges: ranges) }
        var result = [[FigureDayKey: Int64]](repeating: [:], count: ranges.count)
        let wanted = ranges.indices.filter { !ranges[$0].isEmpty }
        guard !series.isEmpty, !wanted.isEmpty else { return result }
        let (appId, environment) = (appId, environment)
        // One statement (at most `summedRanges` ranges): each an index range of days, summed by the database.
        for part in wanted.chunked(by: Self.summedRanges) {
            var query: SQLQueryString = "WITH ranges (position, low, high) AS (VALUES "
            for (index, position) in part.enumerated() {
                query += index == 0 ? "" : ", "
                query +=
                    "(\(unsafeRaw: String(position)), CAST(\(bind: ranges[position].lowerBound) AS BIGINT), CAST(\(bind: ranges[position].upperBound) AS BIGINT))"
            }
            query += """
                ) SELECT ranges.position AS position, figure_days.series AS series, figure_days.currency AS currency,
                figure_days.denominator AS denominator, CAST(SUM(figure_days.value) AS BIGINT) AS value
                FROM ranges JOIN figure_days ON figure_days.app_id = \(bind: appId) AND figure_days.environment = \(bind: environment)
                AND figure_days.grp = \(bind: group) AND figure_days.day >= ranges.low AND figure_days.day < ranges.high
                AND figure_days.series IN (
                """
            for (index, name) in series.enumerated() { query += index == 0 ? "\(bind: name)" : ", \(bind: name)" }
            query += ") GROUP BY ranges.position, figure_days.series, figure_days.currency, figure_days.denominator"
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
        return result
    }

    public func runs(group: String, boundaryFrom from: Date, through: Date) async throws -> (starting: [FigureRun], ending: [FigureRun]) {
        let (appId, environment) = (appId, environment)
        let (low, high) = (from.millisecondsSince1970, through.millisecondsSince1970)
        return try await store.backend.read { db in
            func runs(_ column: String) async throws -> [FigureRun] {
                try await db.raw(
                    """
                    SELECT from_ms, until_ms, slots, currency, amount, denominator FROM figure_runs
                    WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND grp = \(bind: group)
                    AND \(unsafeRaw: column) >= \(bind: low) AND \(unsafeRaw: column) <= \(bind: high)
                    """
                ).all().map { row in
                    let mrr = try row.decode(column: "currency", as: String?.self).map {
                        MoneyPart(currency: $0, amount: try row.int64("amount"), denominator: try row.int64("denominator"))
                    }
                    return FigureRun(
                        group: group, from: Date(millisecondsSince1970: try row.int64("from_ms")),
                        until: try row.optionalInt64("until_ms").map(Date.init(millisecondsSince1970:)),
                        slots: SnapshotSlots(rawValue: try row.int("slots")), mrr: mrr)
                }
            }
            return (try await runs("from_ms"), try await runs("until_ms"))
        }
    }

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
