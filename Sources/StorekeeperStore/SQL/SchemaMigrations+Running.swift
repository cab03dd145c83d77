import SQLKit

/// Running the steps: which are applied, which are missing, and the records kept of them.
extension SchemaMigrations {
    /// The newest version this build knows.
    static let latestVersion = 30

    /// Applies the missing steps (with `.expandOnly`, those that only add); returns their
    /// versions. A step is missing when the database has no record of it, so a contract step
    /// held back by an expand-only migration is applied by a later full one.
    static func migrate(_ db: any SQLDatabase, dialect: SQLStoreDialect, now: Int64, scope: MigrationScope = .all) async throws -> [Int] {
        if dialect == .postgresql {
            // Replicas starting together take turns: the lock lasts until this transaction ends.
            try await db.raw("SELECT pg_advisory_xact_lock(\(bind: 7_261_001))").run()
        }
        try await db.raw(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"
        ).run()
        let before = try await appliedVersions(db)
        _ = try await newerSteps(db, applied: before)
        // Nothing of an earlier version reads a database that did not exist: it gets every step.
        let scope = before.isEmpty ? .all : scope
        var applied: [Int] = []
        for step in steps(for: dialect) where !before.contains(step.version) {
            let contract = MigrationPlan.isContract(step.statements)
            if contract, scope == .expandOnly { continue }
            // A database rewound to an earlier version (a test's) may have the column already.
            var done = false
            if step.version == kindRecorded { done = try await hasKindColumn(db, dialect: dialect) }
            for statement in step.statements where !done {
                // A column a rewound database already has (an expand step adding columns runs whole again).
                if let (table, column) = addedColumn(statement), try await hasColumn(db, table: table, column: column, dialect: dialect) { continue }
                try await db.raw("\(unsafeRaw: statement)").run()
            }
            if step.version == 4 { try await LedgerRekeying.run(db) }
            if step.version == 18 || (step.version == 19 && before.contains(18)) { try await SQLStore.writeAllExperimentRecords(db) }
            if step.version == 21 { _ = try await SQLStore.removeStoredV1Passwords(db) }
            if step.version >= kindRecorded {
                try await db.raw(
                    """
                    INSERT INTO schema_migrations (version, applied_at, kind)
                    VALUES (\(bind: step.version), \(bind: now), \(bind: contract ? "contract" : "expand"))
                    """
                ).run()
            } else {
                try await db.raw("INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: step.version), \(bind: now))").run()
            }
            applied.append(step.version)
        }
        _ = try await buildMissingFigureReadIndexes(db, dialect: dialect)
        if dialect == .postgresql {
            try await db.raw("\(unsafeRaw: databaseDefaults)").run()
            // This session began before the default; so may a pooler's server connection.
            try await db.raw("\(unsafeRaw: SessionDefaults.statement)").run()
        }
        return applied
    }

    /// The session defaults this store wants, set on the database itself so that every
    /// connection has them, through a pooler too (PgBouncer passes no startup parameter but the
    /// client encoding, date style, time zone and application name).
    ///
    /// JIT off: every read here is a few index ranges; a plan over many windows is costed high
    /// enough for PostgreSQL's JIT, which then spent 430 ms compiling a statement that ran in 3.
    /// Only the database's owner may set it; for any other role the statement does nothing, and
    /// ``SQLStore/sessionDefaultsMissing()`` says so at start.
    static let databaseDefaults = """
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
                         WHERE d.datname = current_database() AND s.setrole = 0 AND 'jit=off' = ANY (s.setconfig)) THEN
            EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
          END IF;
        EXCEPTION WHEN insufficient_privilege THEN NULL;
        END $$
        """

    /// The step from which each step's kind is recorded (it adds the column).
    static let kindRecorded = 28

    /// Whether `schema_migrations` has the column of step 28.
    static func hasKindColumn(_ db: any SQLDatabase, dialect: SQLStoreDialect) async throws -> Bool {
        let query: SQLQueryString =
            dialect == .sqlite
            ? "SELECT COUNT(*) AS n FROM pragma_table_info('schema_migrations') WHERE name = 'kind'"
            : """
            SELECT COUNT(*) AS n FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'kind'
            """
        return try await db.raw(query).first()?.decode(column: "n", as: Int.self) ?? 0 > 0
    }

    /// The table and column of an `ALTER TABLE t ADD COLUMN c …` statement.
    static func addedColumn(_ statement: String) -> (table: String, column: String)? {
        let words = statement.split(separator: " ")
        guard words.count >= 6, words[0] == "ALTER", words[1] == "TABLE", words[3] == "ADD", words[4] == "COLUMN" else { return nil }
        return (String(words[2]), String(words[5]))
    }

    /// Whether `table` has `column`.
    static func hasColumn(_ db: any SQLDatabase, table: String, column: String, dialect: SQLStoreDialect) async throws -> Bool {
        let query: SQLQueryString =
            dialect == .sqlite
            ? "SELECT COUNT(*) AS n FROM pragma_table_info(\(bind: table)) WHERE name = \(bind: column)"
            : """
            SELECT COUNT(*) AS n FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(bind: table) AND column_name = \(bind: column)
            """
        return try await db.raw(query).first()?.decode(column: "n", as: Int.self) ?? 0 > 0
    }

    /// The versions the database records as applied.
    static func appliedVersions(_ db: any SQLDatabase) async throws -> Set<Int> {
        Set(try await db.raw("SELECT version FROM schema_migrations").all().map { try $0.decode(column: "version", as: Int.self) })
    }

    /// The steps of a newer build applied to the database (none when this build knows every
    /// one). A build runs beside newer steps that only add (a rolling deploy: the newer build
    /// migrated with `--expand-only`, or migrated while this one still runs); a newer contract
    /// step, or one whose kind is not recorded, removed or changed what this build may read,
    /// and is refused (``StoreError/Code/schemaTooNew``).
    static func newerSteps(_ db: any SQLDatabase, applied: Set<Int>, latest: Int = latestVersion) async throws -> [Int] {
        let newer = applied.filter { $0 > latest }.sorted()
        guard !newer.isEmpty else { return [] }
        let kinds = Dictionary(
            uniqueKeysWithValues: try await db.raw("SELECT version, kind FROM schema_migrations WHERE version > \(bind: latest)").all().map {
                (try $0.decode(column: "version", as: Int.self), try $0.optionalString("kind"))
            })
        if let refused = newer.first(where: { kinds[$0] != "expand" }) {
            throw StoreError(
                code: .schemaTooNew,
                message:
                    "the database has schema version \(newer.last ?? refused), and step \(refused) of a newer build "
                    + "\(kinds[refused] == "contract" ? "removed what" : "may have changed what") this build (version \(latest)) reads")
        }
        return newer
    }

    static func currentVersion(_ db: any SQLDatabase) async throws -> Int {
        let row = try await db.raw("SELECT MAX(version) AS version FROM schema_migrations").first()
        return try row?.decode(column: "version", as: Int?.self) ?? 0
    }
}
