import Foundation
import SQLKit
import SubscriptionAnalytics

extension SQLStore {
    /// Writes chain figures inside the caller's transaction (docs/read-side.md): for each chain
    /// whose ledger still has the rows the figures were computed from, the difference from the
    /// chain's stored figures goes to the daily rollups and the groups, and its rows are
    /// replaced. Returns the chains whose figures were not written (another intake of the chain
    /// came between): their retry jobs are added instead. The rollup changes go to `rollups`
    /// while a bulk load holds them back (``deferringRollups(_:)``).
    static func writeFigures(
        _ updates: [FigureUpdate], appId: String, dialect: SQLStoreDialect, rollups deferral: RollupDeferral, _ db: any SQLDatabase
    ) async throws {
        var stale: [JobRecord] = []
        // Updates come one environment at a time from each caller; group them so.
        for (_, part) in Dictionary(grouping: updates, by: \.environment).sorted(by: { $0.key < $1.key }) {
            // Documents locked in one order by every transaction (PostgreSQL).
            try await writeFigures(part.sorted { $0.chain < $1.chain }, appId: appId, dialect: dialect, deferral: deferral, stale: &stale, db)
        }
        for job in stale { try await addJob(job, appId: appId, db) }
    }

    /// Writes the figures of chains in one environment, then the cohort rows of their customers.
    private static func writeFigures(
        _ updates: [FigureUpdate], appId: String, dialect: SQLStoreDialect, deferral: RollupDeferral, stale: inout [JobRecord],
        _ db: any SQLDatabase
    ) async throws {
        var owners = Set<String>()
        var calendar: FigureCalendar?
        var environment: String?
        // The documents this transaction wrote, which the cohort rows below need not decode.
        var written: [String: ChainFigures] = [:]
        for update in updates { written[update.chain] = update.figures }
        // The rollup cells and group counts of every document, written once at the end.
        var rollups = RollupChanges()
        for update in try await writeNewDocuments(updates, appId: appId, rollups: &rollups, db) {
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
                written[update.chain] = nil
                continue
            }
            let old = try document(stored)
            if let owner = try stored?.decode(column: "customer", as: String?.self) { owners.insert(owner) }
            if let owner = update.customer { owners.insert(owner) }
            try await replaceDocument(
                old: old, new: (update.figures, update.document(), update.cells()), key: key, calendar: update.calendar,
                chain: (update.facts, update.customer), rollups: &rollups, db)
            calendar = update.calendar
            environment = update.environment
        }
        // The cohort rows and experiment records of every customer whose chains changed, from
        // all of the customer's chains as they now are (their document rows locked first, as a chain's are).
        if let calendar, let environment {
            for owner in owners.sorted() {
                let key = (appId, environment, FigureUpdate.cohortKey(owner))
                let stored = try await lockedDocument(key, timeZone: calendar.timeZone.identifier, dialect: dialect, db)
                let chains = try await db.raw(
                    """
                    SELECT chain, rows FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment)
                    AND customer = \(bind: owner)
                    """
                ).all().map { try written[$0.string("chain")] ?? document($0) }
                let rows = ChainFigures.cohortRows(of: chains, calendar: calendar)
                try await replaceDocument(
                    old: try document(stored), new: (rows, rows.text, rows.days(in: calendar)), key: key,
                    calendar: calendar, rollups: &rollups, db)
                try await writeExperimentRecords(appId: appId, environment: environment, owner: owner, chains: chains, keepingSums: true, db)
            }
        }
        let rollupEnvironment = updates.first?.environment ?? ""
        guard !deferral.hold(rollups, appId: appId, environment: rollupEnvironment) else { return }
        try await rollups.write(appId: appId, environment: rollupEnvironment, ordered: dialect == .postgresql, db)
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

    /// The figures a document row holds: as text (``ChainFigures/text``), or as JSON (written
    /// before 2026-11-28), or none yet (`{}`).
    /// `keeping`: only the rows of the groups it keeps are read (all of a JSON document are).
    static func document(_ row: (any SQLRow)?, keeping: ((String) -> Bool)? = nil) throws -> ChainFigures {
        let text = try row?.string("rows") ?? "{}"
        guard text.utf8.first != UInt8(ascii: "{") else {
            return text == "{}" ? ChainFigures() : try StoreCoding.decode(ChainFigures.self, from: text, column: "rows")
        }
        do {
            return try ChainFigures(text: text, keeping: keeping)
        } catch {
            throw StoreError(code: .corruptRow, message: "column rows does not decode: line \(error.line)")
        }
    }

    /// Replaces the rows of document `key` (a chain's or a customer's cohort rows) with `new`,
    /// and adds the difference from `old` to the daily rollups and the groups.
    /// A chain's document also records how many facts it was computed from and its customer
    /// (`chain`), whether or not its rows changed.
    private static func replaceDocument(
        old: ChainFigures, new: (figures: ChainFigures, json: String, days: [FigureDayKey: Int64]), key: (String, String, String),
        calendar: FigureCalendar, chain: (facts: Int, customer: String?)? = nil, rollups: inout RollupChanges, _ db: any SQLDatabase
    ) async throws {
        let document: SQLQueryString = " WHERE app_id = \(bind: key.0) AND environment = \(bind: key.1) AND chain = \(bind: key.2)"
        guard old != new.figures else {
            if let chain {
                try await db.raw("UPDATE figure_chains SET facts = \(bind: chain.facts), customer = \(bind: chain.customer)" + document).run()
            }
            return
        }
        for (cell, value) in new.days { rollups.cells[cell, default: 0] += value }
        if old != ChainFigures() {
            for (cell, value) in old.days(in: calendar) { rollups.cells[cell, default: 0] -= value }
        }
        let (oldGroups, newGroups) = (old.groups, new.figures.groups)
        for group in newGroups.subtracting(oldGroups) { rollups.groups[group, default: 0] += 1 }
        for group in oldGroups.subtracting(newGroups) { rollups.groups[group, default: 0] -= 1 }
        try await replaceRows(old: old, new: new.figures, key: key, db)
        var update: SQLQueryString = "UPDATE figure_chains SET rows = \(bind: new.json)"
        if let chain { update += ", facts = \(bind: chain.facts), customer = \(bind: chain.customer)" }
        try await db.raw(update + document).run()
    }

    /// Writes the difference between a document's old and new rows: the rows of every key
    /// (group and instant) whose rows differ are deleted, by the indexes the reads use, and the
    /// new rows of those keys inserted; the rest stay (a renewal changes a few rows of a long
    /// chain, not all of them).
    private static func replaceRows(old: ChainFigures, new: ChainFigures, key: (String, String, String), _ db: any SQLDatabase) async throws {
        func changed<Row: Hashable, Key: Hashable>(_ old: [Row], _ new: [Row], by key: (Row) -> Key) -> (keys: [Key], rows: [Row]) {
            var counts: [Row: Int] = [:]
            for row in old { counts[row, default: 0] -= 1 }
            for row in new { counts[row, default: 0] += 1 }
            let keys = Set(counts.filter { $0.value != 0 }.keys.map(key))
            return (Array(keys), new.filter { keys.contains(key($0)) })
        }
        let runs = changed(old.runs, new.runs) { RowKey(group: $0.group, at: $0.from.millisecondsSince1970) }
        let items = changed(old.items, new.items) { RowKey(group: $0.group, at: $0.at.millisecondsSince1970) }
        let churn = changed(old.churn, new.churn) { RowKey(group: $0.group, at: $0.ended.millisecondsSince1970) }
        for (table, column, keys) in [
            ("figure_runs", "from_ms", runs.keys), ("figure_items", "at_ms", items.keys), ("figure_churn", "ended_ms", churn.keys),
        ] {
            for chunk in keys.chunked(by: 100) {
                var query: SQLQueryString = """
                    DELETE FROM \(unsafeRaw: table) WHERE app_id = \(bind: key.0) AND environment = \(bind: key.1) AND chain = \(bind: key.2) AND (
                    """
                for (position, row) in chunk.enumerated() {
                    query += position == 0 ? "" : " OR "
                    query += "(grp = \(bind: row.group) AND \(unsafeRaw: column) = \(bind: row.at))"
                }
                try await db.raw(query + ")").run()
            }
        }
        let rows = ChainFigures(runs: runs.rows, items: items.rows, churn: churn.rows)
        try await insertRows([(key.2, rows)], appId: key.0, environment: key.1, db)
    }

    /// Inserts the rows of documents (`chain`: a chain's id or a customer's cohort key), many
    /// rows a statement.
    private static func insertRows(
        _ documents: [(chain: String, figures: ChainFigures)], appId: String, environment: String, _ db: any SQLDatabase
    )
        async throws
    {
        let (app, environment) = (BulkValue.text(appId), BulkValue.text(environment))
        var values: [BulkValue] = []
        for (chain, figures) in documents {
            for run in figures.runs {
                values += [
                    app, environment, .text(run.group), .text(chain), .integer(run.from.millisecondsSince1970),
                    BulkValue(run.until?.millisecondsSince1970), .integer(Int64(run.slots.rawValue)), BulkValue(run.mrr?.currency),
                    BulkValue(run.mrr?.amount), BulkValue(run.mrr?.denominator),
                ]
            }
        }
        try await figureRunRows.run(values, db)
        values.removeAll(keepingCapacity: true)
        for (chain, figures) in documents {
            for item in figures.items {
                values += [
                    app, environment, .text(item.group), .text(chain), .text(item.kind.rawValue), .integer(item.at.millisecondsSince1970),
                    BulkValue(item.money?.currency ?? item.proceeds?.currency), BulkValue(item.money?.amount),
                    BulkValue(item.money?.denominator), BulkValue(item.proceeds?.amount), BulkValue(item.proceeds?.denominator),
                ]
            }
        }
        try await figureItemRows.run(values, db)
        values.removeAll(keepingCapacity: true)
        for (chain, figures) in documents {
            for span in figures.churn {
                values += [
                    app, environment, .text(span.group), .text(chain), .integer(span.ended.millisecondsSince1970),
                    .integer(span.from.millisecondsSince1970), BulkValue(span.until?.millisecondsSince1970),
                ]
            }
        }
        try await figureChurnRows.run(values, db)
    }

    private static let figureRunRows = BulkInsert(
        table: "figure_runs", columns: ["app_id", "environment", "grp", "chain", "from_ms", "until_ms", "slots", "currency", "amount", "denominator"])
    private static let figureItemRows = BulkInsert(
        table: "figure_items",
        columns: [
            "app_id", "environment", "grp", "chain", "kind", "at_ms", "currency", "amount", "denominator", "proceeds_amount",
            "proceeds_denominator",
        ])
    private static let figureChurnRows = BulkInsert(
        table: "figure_churn", columns: ["app_id", "environment", "grp", "chain", "ended_ms", "from_ms", "until_ms"])

    /// Writes, all at once, the documents of chains that have none yet (a build, a seed) and
    /// of their customers who have none either: their rows in multi-row statements, their
    /// rollup cells and group counts summed first. Returns the updates it did not write (the
    /// chain has a document, its ledger count differs, or its customer has other chains): the
    /// caller writes those one at a time.
    private static func writeNewDocuments(
        _ updates: [FigureUpdate], appId: String, rollups: inout RollupChanges, _ db: any SQLDatabase
    ) async throws -> [FigureUpdate] {
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
        let freshChains = Set(fresh.map(\.chain))
        let later = updates.filter { !freshChains.contains($0.chain) }
        // Customers whose chains are all among the fresh ones get their cohort rows here too.
        let elsewhere = Set(later.compactMap(\.customer)).union(owned)
        var byOwner: [String: [ChainFigures]] = [:]
        for update in fresh { if let owner = update.customer, !elsewhere.contains(owner) { byOwner[owner, default: []].append(update.figures) } }
        var documents: [(chain: String, figures: ChainFigures, json: String)] = fresh.map { ($0.chain, $0.figures, $0.document()) }
        for update in fresh { for (key, value) in update.cells() { rollups.cells[key, default: 0] += value } }
        for (owner, chains) in byOwner.sorted(by: { $0.key < $1.key }) {
            let rows = ChainFigures.cohortRows(of: chains, calendar: calendar)
            documents.append((FigureUpdate.cohortKey(owner), rows, rows.text))
            for (key, value) in rows.days(in: calendar) { rollups.cells[key, default: 0] += value }
        }
        for document in documents {
            for group in document.figures.groups { rollups.groups[group, default: 0] += 1 }
        }
        let customers = Dictionary(fresh.map { ($0.chain, $0.customer) }, uniquingKeysWith: { first, _ in first })
        let facts = Dictionary(fresh.map { ($0.chain, $0.facts) }, uniquingKeysWith: { first, _ in first })
        for chunk in documents.chunked(by: 100) {
            var query: SQLQueryString = "INSERT INTO figure_chains (app_id, environment, chain, facts, time_zone, rows, customer) VALUES"
            for (position, document) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: appId), \(bind: environment), \(bind: document.chain), \(bind: facts[document.chain] ?? 0),
                    \(bind: first.timeZone), \(bind: document.json), \(bind: customers[document.chain] ?? nil))
                    """
            }
            try await db.raw(query).run()
        }
        try await insertRows(documents.map { ($0.chain, $0.figures) }, appId: appId, environment: environment, db)
        // The experiment records of those customers who are enrolled (they have none yet:
        // none of their chains had figures).
        var enrolled = Set<String>()
        for part in byOwner.keys.compactMap(FigureUpdate.customer(ofOwner:)).sorted().chunked(by: 500) {
            for row in try await db.raw(
                "SELECT DISTINCT customer_id FROM experiment_enrolments WHERE app_id = \(bind: appId) AND customer_id IN (" + strings(Array(part))
                    + ")"
            ).all() { enrolled.insert(try row.string("customer_id")) }
        }
        for (owner, chains) in byOwner.sorted(by: { $0.key < $1.key }) where FigureUpdate.customer(ofOwner: owner).map(enrolled.contains) ?? false {
            try await writeExperimentRecords(appId: appId, environment: environment, owner: owner, chains: chains, keepingSums: true, db)
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
            for table in [
                "figure_chains", "figure_runs", "figure_items", "figure_churn", "figure_days", "figure_months", "figure_groups", "figure_state",
                "experiment_outcomes", "experiment_outcome_sums",
            ] {
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
                for (position, customer) in part.enumerated() {
                    query += (position == 0 ? "" : ", ") + "\(bind: FigureUpdate.owner(customer: customer))"
                }
                query += ")"
                return try await db.raw(query).all().map { (try $0.string("customer"), try Self.document($0, keeping: { $0.isEmpty })) }
            }
            for (owner, figures) in rows {
                if let customer = FigureUpdate.customer(ofOwner: owner) { result[customer, default: []].append(figures) }
            }
        }
        return result
    }

    /// The figure rows of `appId` in `environment`, read through this store.
    public func figureRows(appId: String, environment: String, calendar: FigureCalendar) -> SQLFigureRows {
        SQLFigureRows(store: self, appId: appId, environment: environment, calendar: calendar)
    }
}

/// What a transaction's documents add to the daily (and so monthly) rollups and the group
/// counts, summed, to be written with a few statements at the end.
struct RollupChanges: Sendable {
    var cells: [FigureDayKey: Int64] = [:]
    var groups: [String: Int] = [:]

    /// Adds the changes to the rollup cells (the days', then the months' that sum them) and the
    /// group counts, many a statement; `ordered`: in the cells' order, so that concurrent
    /// transactions (PostgreSQL) take their rows' locks in one order.
    func write(appId: String, environment: String, ordered: Bool, _ db: any SQLDatabase) async throws {
        var months: [FigureDayKey: Int64] = [:]
        for (cell, value) in cells where value != 0 {
            var month = cell
            month.day = FigureCalendar.monthStart(ofDay: cell.day)
            months[month, default: 0] += value
        }
        for (insert, changes) in [(Self.dayCells, cells), (Self.monthCells, months)] {
            let changed = changes.filter { $0.value != 0 }
            let cells = ordered ? changed.sorted(by: { $0.key < $1.key }) : Array(changed)
            var values: [BulkValue] = []
            values.reserveCapacity(cells.count * 8)
            for (cell, value) in cells {
                values += [
                    .text(appId), .text(environment), .text(cell.group), .text(cell.series), .integer(Int64(cell.day)), .text(cell.currency),
                    .integer(cell.denominator), .integer(value),
                ]
            }
            try await insert.run(values, db)
        }
        for chunk in groups.filter({ $0.value != 0 }).sorted(by: { $0.key < $1.key }).chunked(by: 200) {
            var query: SQLQueryString = "INSERT INTO figure_groups (app_id, environment, grp, chains) VALUES"
            for (position, (group, count)) in chunk.enumerated() {
                query += (position == 0 ? " " : ", ") + "(\(bind: appId), \(bind: environment), \(bind: group), \(bind: count))"
            }
            query += " ON CONFLICT (app_id, environment, grp) DO UPDATE SET chains = figure_groups.chains + excluded.chains"
            try await db.raw(query).run()
        }
    }
}

extension RollupChanges {
    private static func cells(table: String, column: String) -> BulkInsert {
        BulkInsert(
            table: table, columns: ["app_id", "environment", "grp", "series", column, "currency", "denominator", "value"],
            conflict: """
                ON CONFLICT (app_id, environment, grp, series, \(column), currency, denominator)
                DO UPDATE SET value = \(table).value + excluded.value
                """)
    }

    static let dayCells = cells(table: "figure_days", column: "day")
    static let monthCells = cells(table: "figure_months", column: "month")

    /// Adds `other`'s changes to these.
    mutating func add(_ other: RollupChanges) {
        cells.merge(other.cells, uniquingKeysWith: +)
        groups.merge(other.groups, uniquingKeysWith: +)
    }
}

/// A figure row's place in its table's index: its group and its instant (a run's start, an
/// item's date, a churn span's end).
private struct RowKey: Hashable {
    var group: String
    var at: Int64
}
