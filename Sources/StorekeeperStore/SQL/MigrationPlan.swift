import Foundation
import SQLKit

/// What ``SQLStore/migrate()`` would run on a database, read without changing anything
/// (`storekeeper migrate --plan`): each missing step, whether it only adds (expand) or removes
/// what only an earlier version reads (contract), and, statement by statement, the table it
/// touches, that table's size and what the statement holds back while it runs.
public struct MigrationPlan: Sendable, Equatable {
    /// The database's schema version, and this build's.
    public var currentVersion: Int
    public var latestVersion: Int
    public var steps: [Step]
    /// The figure read indexes the migration builds because they are missing (a bulk load that
    /// did not finish), each an action.
    public var missingIndexes: [Action]

    public struct Step: Sendable, Equatable {
        public var version: Int
        /// Only removes (indexes, tables) what an earlier version reads: a rolling deploy runs it
        /// once no server of that version is left.
        public var isContract: Bool
        public var actions: [Action]
    }

    /// What a statement holds back while it runs.
    public enum Hold: String, Sendable, Equatable {
        /// A table that did not exist: nothing waits.
        case nothing
        /// A moment's exclusive lock (dropping an index, changing a table's settings).
        case briefly
        /// Writes to the table wait until it ends (building an index: PostgreSQL's `SHARE` lock).
        case writes
        /// The rows it changes are locked until the step commits; reads go on.
        case changedRows
    }

    public struct Action: Sendable, Equatable {
        /// The statement in short: its verb, object and table.
        public var summary: String
        /// The table whose size its time follows, if any.
        public var table: String?
        /// The index it builds, if it builds one.
        public var index: String?
        /// That table's rows (an estimate); nil when it does not exist yet or is unknown.
        public var rows: Int64?
        public var hold: Hold
        /// Whether its time grows with the table's rows (a build, a copy, a rewrite).
        public var scales: Bool

        /// Whether it is worth a quiet hour: its time grows with a table of ``MigrationPlan/largeTable`` rows or more.
        public var isLarge: Bool { scales && (rows ?? 0) >= MigrationPlan.largeTable }
    }

    /// The rows from which a table is called large.
    public static let largeTable: Int64 = 100_000

    /// The action of one migration statement, without the table's size.
    static func action(of statement: String) -> Action {
        let words = statement.split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == ";" }).map(String.init)
        let upper = words.map { $0.uppercased() }
        func word(after keyword: String, skipping: Set<String> = ["IF", "NOT", "EXISTS", "ONLY"]) -> String? {
            guard let index = upper.firstIndex(of: keyword) else { return nil }
            return words[(index + 1)...].first { !skipping.contains($0.uppercased()) }
        }
        let head = upper.prefix(3).joined(separator: " ")
        if head.hasPrefix("CREATE TABLE") {
            let name = word(after: "TABLE") ?? "?"
            if let source = word(after: "FROM") {
                return Action(summary: "CREATE TABLE \(name) from \(source)", table: source, hold: .nothing, scales: true)
            }
            return Action(summary: "CREATE TABLE \(name)", table: name, hold: .nothing, scales: false)
        }
        if head.hasPrefix("CREATE INDEX") || head.hasPrefix("CREATE UNIQUE INDEX") {
            let name = word(after: "INDEX") ?? "?"
            let table = word(after: "ON") ?? "?"
            return Action(summary: "CREATE INDEX \(name) ON \(table)", table: table, index: name, hold: .writes, scales: true)
        }
        if head.hasPrefix("DROP INDEX") { return Action(summary: "DROP INDEX \(word(after: "INDEX") ?? "?")", hold: .briefly, scales: false) }
        if head.hasPrefix("DROP TABLE") { return Action(summary: "DROP TABLE \(word(after: "TABLE") ?? "?")", hold: .briefly, scales: false) }
        if head.hasPrefix("ALTER TABLE") {
            let name = word(after: "TABLE") ?? "?"
            let rest = upper.dropFirst(3)
            // Renaming, settings and a column without a default touch no row.
            let rewrites = rest.contains("TYPE") || (rest.contains("ADD") && rest.contains("DEFAULT") && rest.contains("VOLATILE"))
            return Action(summary: "ALTER TABLE \(name)", table: name, hold: .briefly, scales: rewrites)
        }
        if upper.first == "INSERT" {
            let target = word(after: "INTO") ?? "?"
            if let source = word(after: "FROM") {
                return Action(summary: "INSERT INTO \(target) from \(source)", table: source, hold: .changedRows, scales: true)
            }
            return Action(summary: "INSERT INTO \(target)", table: target, hold: .changedRows, scales: false)
        }
        if upper.first == "UPDATE" {
            let name = words.count > 1 ? words[1] : "?"
            return Action(summary: "UPDATE \(name)", table: name, hold: .changedRows, scales: true)
        }
        if upper.first == "DELETE" {
            let name = word(after: "FROM") ?? "?"
            return Action(summary: "DELETE FROM \(name)", table: name, hold: .changedRows, scales: true)
        }
        return Action(summary: String(statement.prefix(60)).replacingOccurrences(of: "\n", with: " "), hold: .briefly, scales: false)
    }

    /// The work a step does in code besides its statements (``SchemaMigrations/migrate(_:dialect:now:)``).
    static func codeActions(version: Int, applied: Set<Int>) -> [Action] {
        if version == 4 {
            return [Action(summary: "rewrite every ledger row's key", table: "ledger", hold: .changedRows, scales: true)]
        }
        if version == 18 || (version == 19 && applied.contains(18)) {
            return [Action(summary: "write experiment records from the ledger", table: "ledger", hold: .changedRows, scales: true)]
        }
        if version == 21 {
            return [Action(summary: "remove V1 passwords stored in the inbox and ledger", table: "ledger", hold: .changedRows, scales: true)]
        }
        return []
    }

    /// Whether a step's statements only remove (indexes, tables).
    static func isContract(_ statements: [String]) -> Bool {
        !statements.isEmpty && statements.allSatisfy { $0.uppercased().hasPrefix("DROP ") }
    }
}

extension SQLStore {
    /// The versions the database records as applied (none before the first migration).
    func appliedVersions() async throws -> Set<Int> {
        guard try await schemaVersion() > 0 else { return [] }
        return try await backend.read { db in try await SchemaMigrations.appliedVersions(db) }
    }

    /// The schema version this build migrates to.
    public static var latestSchemaVersion: Int { SchemaMigrations.latestVersion }

    /// What ``migrate()`` would run here now; changes nothing.
    public func migrationPlan() async throws -> MigrationPlan {
        let current = try await schemaVersion()
        let applied = try await appliedVersions()
        let dialect = backend.dialect
        // A table present has an entry; its value is nil when its size is unknown.
        let tables = try await backend.read { db in try await Self.tableRows(db, dialect: dialect) }
        let present = try await backend.read { db in try await Self.indexNames(db, dialect: dialect) }
        var made: Set<String> = []
        var steps: [MigrationPlan.Step] = []
        for step in SchemaMigrations.steps(for: dialect) where !applied.contains(step.version) {
            var actions = step.statements.map(MigrationPlan.action(of:)) + MigrationPlan.codeActions(version: step.version, applied: applied)
            for index in actions.indices {
                guard let table = actions[index].table else { continue }
                if actions[index].summary == "CREATE TABLE \(table)" {
                    if tables[table] == nil { made.insert(table) } else { actions[index].summary += " (there already)" }
                }
                if dialect == .postgresql, actions[index].index != nil, !made.contains(table), tables[table] != nil,
                    index < step.statements.count, Self.concurrentIndex(step.statements[index]) != nil
                {
                    // Built before the transaction, concurrently: the table takes writes meanwhile.
                    actions[index].summary += " CONCURRENTLY"
                    actions[index].hold = .nothing
                }
                if let name = actions[index].index, present.contains(name), !made.contains(table) {
                    actions[index].summary += " (there already)"
                    actions[index].hold = .nothing
                    actions[index].scales = false
                }
                if made.contains(table) {
                    // A table this plan makes: empty, and nothing waits for it.
                    actions[index].rows = 0
                    actions[index].hold = .nothing
                } else {
                    actions[index].rows = tables[table] ?? nil
                }
            }
            steps.append(MigrationPlan.Step(version: step.version, isContract: MigrationPlan.isContract(step.statements), actions: actions))
        }
        // The ones a planned step makes are not missing.
        let planned = Set(steps.flatMap(\.actions).map(\.summary))
        let missing = SchemaMigrations.figureReadIndexes.filter { index in
            !present.contains(index.name) && !planned.contains(MigrationPlan.action(of: index.statement).summary)
        }.map { index in
            var action = MigrationPlan.action(of: index.statement)
            action.rows = action.table.flatMap { tables[$0] ?? 0 }
            return action
        }
        return MigrationPlan(currentVersion: current, latestVersion: SchemaMigrations.latestVersion, steps: steps, missingIndexes: missing)
    }

    /// Every table, with its rows estimated without reading them (nil when unknown): PostgreSQL's
    /// statistics, SQLite's largest rowid.
    static func tableRows(_ db: any SQLDatabase, dialect: SQLStoreDialect) async throws -> [String: Int64?] {
        var tables: [String: Int64?] = [:]
        switch dialect {
        case .postgresql:
            // A table never analyzed has no estimate (-1); the statistics' live rows stand in.
            let found = try await db.raw(
                """
                SELECT c.relname AS name, COALESCE(NULLIF(c.reltuples, -1)::BIGINT, s.n_live_tup) AS rows FROM pg_class c
                LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
                WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
                """
            ).all()
            for row in found { tables[try row.string("name")] = .some(try row.decode(column: "rows", as: Int64?.self)) }
        case .sqlite:
            let names = try await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all().map {
                try $0.string("name")
            }
            // A table without rowids has no cheap size but what `ANALYZE` noted, if it ran.
            let analyzed = try await db.raw("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'").first() != nil
            var noted: [String: Int64] = [:]
            if analyzed {
                for row in try await db.raw("SELECT tbl, stat FROM sqlite_stat1").all() {
                    let rows = (try row.decode(column: "stat", as: String?.self))?.split(separator: " ").first.flatMap { Int64($0) }
                    if let rows { noted[try row.string("tbl")] = max(noted[try row.string("tbl")] ?? 0, rows) }
                }
            }
            for name in names {
                let largest = try? await db.raw("SELECT COALESCE(MAX(rowid), 0) AS rows FROM \(ident: name)").first()?.int64("rows")
                tables[name] = .some(largest ?? noted[name])
            }
        }
        return tables
    }

    static func indexNames(_ db: any SQLDatabase, dialect: SQLStoreDialect) async throws -> Set<String> {
        let query: SQLQueryString =
            switch dialect {
            case .postgresql: "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()"
            case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'index'"
            }
        return Set(try await db.raw(query).all().map { try $0.string("name") })
    }
}
