import SQLKit

/// The schema, as numbered steps; each runs once, in order, in one transaction with the
/// record of it. Times are milliseconds since 1970 in `BIGINT` columns on both databases.
enum SchemaMigrations {
    /// Every step; append only, never edit a released step.
    static func steps(for dialect: SQLStoreDialect) -> [(version: Int, statements: [String])] {
        let id = dialect == .postgresql ? "id BIGSERIAL PRIMARY KEY" : "id INTEGER PRIMARY KEY AUTOINCREMENT"
        return [
            (
                1,
                [
                    "CREATE TABLE apps (id TEXT PRIMARY KEY, bundle_id TEXT NOT NULL, created_at BIGINT NOT NULL)",
                    """
                    CREATE TABLE customers (app_id TEXT NOT NULL, customer_id TEXT NOT NULL, created_at BIGINT NOT NULL,
                    PRIMARY KEY (app_id, customer_id))
                    """,
                    """
                    CREATE TABLE customer_aliases (app_id TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL,
                    customer_id TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (app_id, kind, value))
                    """,
                    "CREATE INDEX customer_aliases_customer ON customer_aliases (app_id, customer_id)",
                    """
                    CREATE TABLE ledger (\(id), app_id TEXT NOT NULL, fact_key TEXT NOT NULL, kind TEXT NOT NULL,
                    customer_id TEXT, original_transaction_id TEXT, transaction_id TEXT, source TEXT NOT NULL,
                    signed_at BIGINT, fact TEXT NOT NULL, raw TEXT, recorded_at BIGINT NOT NULL, UNIQUE (app_id, fact_key))
                    """,
                    "CREATE INDEX ledger_chain ON ledger (app_id, original_transaction_id)",
                    "CREATE INDEX ledger_customer ON ledger (app_id, customer_id)",
                    "CREATE INDEX ledger_transaction ON ledger (app_id, transaction_id)",
                    """
                    CREATE TABLE notification_inbox (\(id), app_id TEXT NOT NULL, idempotency_key TEXT NOT NULL,
                    version INTEGER NOT NULL, body TEXT NOT NULL, headers TEXT NOT NULL, received_at BIGINT NOT NULL,
                    state TEXT NOT NULL, failure_reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, lease_owner TEXT,
                    lease_until BIGINT, processed_at BIGINT, notification_uuid TEXT, notification_type TEXT, subtype TEXT,
                    original_transaction_id TEXT, signed_at BIGINT, environment TEXT, UNIQUE (app_id, idempotency_key))
                    """,
                    "CREATE INDEX inbox_pending ON notification_inbox (state, id)",
                    "CREATE INDEX inbox_chain ON notification_inbox (app_id, original_transaction_id)",
                    "CREATE INDEX inbox_uuid ON notification_inbox (app_id, notification_uuid)",
                    """
                    CREATE TABLE events (\(id), app_id TEXT NOT NULL, customer_id TEXT, original_transaction_id TEXT,
                    type TEXT NOT NULL, payload TEXT NOT NULL, occurred_at BIGINT NOT NULL, idempotency_key TEXT NOT NULL,
                    UNIQUE (app_id, idempotency_key))
                    """,
                    "CREATE INDEX events_customer ON events (app_id, customer_id)",
                    "CREATE INDEX events_chain ON events (app_id, original_transaction_id)",
                    """
                    CREATE TABLE jobs (\(id), app_id TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL,
                    run_at BIGINT NOT NULL, idempotency_key TEXT NOT NULL, state TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, lease_owner TEXT, lease_until BIGINT,
                    UNIQUE (app_id, idempotency_key))
                    """,
                    "CREATE INDEX jobs_due ON jobs (state, run_at)",
                    """
                    CREATE TABLE audit_log (\(id), app_id TEXT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
                    customer_id TEXT, reason TEXT, details TEXT NOT NULL, at BIGINT NOT NULL)
                    """,
                    "CREATE INDEX audit_app ON audit_log (app_id, id)",
                ]
            ),
            // Lookups by notification type (the scheduler's consumption requests) and by ledger
            // recording time (planning looks for chains that changed) without scanning.
            (
                2,
                [
                    "CREATE INDEX inbox_type ON notification_inbox (app_id, notification_type, state, id)",
                    "CREATE INDEX ledger_recorded ON ledger (app_id, recorded_at)",
                ]
            ),
            // Claiming takes each app's oldest pending rows in turn (which apps have pending
            // rows is read from the index alone: a row's later columns sit behind its body);
            // retention removes old rejected and duplicate rows.
            (
                3,
                [
                    "CREATE INDEX inbox_state_app ON notification_inbox (state, app_id, id)",
                    "CREATE INDEX inbox_state_received ON notification_inbox (state, received_at)",
                ]
            ),
            // Ledger keys are built from Apple's identities, no longer from a digest of the
            // engine's encoding: existing rows are re-keyed by code (``LedgerRekeying``).
            (4, []),
            // The dashboard's users: a slow password hash, a role, the apps they may see (a JSON
            // array, or null for every app).
            (
                5,
                [
                    """
                    CREATE TABLE dashboard_users (email TEXT PRIMARY KEY, password_hash TEXT NOT NULL, role TEXT NOT NULL,
                    apps TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
                    """
                ]
            ),
            // The dashboard's sign-in sessions (by the SHA-256 of the cookie's token, never the
            // token), and the audit log read per customer (the customer page's timeline).
            (
                6,
                [
                    """
                    CREATE TABLE dashboard_sessions (token_hash TEXT PRIMARY KEY, email TEXT NOT NULL, created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL)
                    """,
                    "CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at)",
                    "CREATE INDEX audit_customer ON audit_log (app_id, customer_id, id)",
                    "CREATE INDEX customers_recent ON customers (app_id, created_at)",
                ]
            ),
            // Events out: one delivery per event and destination, written with the event (the
            // outbox); every attempt kept; destinations an endpoint disabled (410).
            (
                7,
                [
                    """
                    CREATE TABLE event_deliveries (\(id), app_id TEXT NOT NULL, event_id BIGINT NOT NULL, destination TEXT NOT NULL,
                    state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT NOT NULL, lease_owner TEXT,
                    lease_until BIGINT, last_status INTEGER, last_error TEXT, delivered_at BIGINT, created_at BIGINT NOT NULL,
                    UNIQUE (event_id, destination))
                    """,
                    "CREATE INDEX deliveries_due ON event_deliveries (state, next_attempt_at)",
                    "CREATE INDEX deliveries_destination ON event_deliveries (app_id, destination, id)",
                    """
                    CREATE TABLE delivery_attempts (\(id), delivery_id BIGINT NOT NULL, at BIGINT NOT NULL, status INTEGER,
                    error TEXT, duration_ms INTEGER NOT NULL)
                    """,
                    "CREATE INDEX attempts_delivery ON delivery_attempts (delivery_id, id)",
                    """
                    CREATE TABLE disabled_destinations (app_id TEXT NOT NULL, destination TEXT NOT NULL, reason TEXT NOT NULL,
                    at BIGINT NOT NULL, PRIMARY KEY (app_id, destination))
                    """,
                    """
                    CREATE TABLE problems (\(id), app_id TEXT NOT NULL, kind TEXT NOT NULL, cause_key TEXT NOT NULL, status TEXT NOT NULL,
                    customer_id TEXT, summary TEXT NOT NULL, evidence TEXT NOT NULL, amount TEXT, currency TEXT,
                    occurrences INTEGER NOT NULL, opened_at BIGINT NOT NULL, resolved_at BIGINT, resolved_by TEXT)
                    """,
                    "CREATE UNIQUE INDEX problems_open_cause ON problems (app_id, cause_key) WHERE status = 'open'",
                    "CREATE INDEX problems_app ON problems (app_id, status, id)",
                    """
                    CREATE TABLE webhooks (app_id TEXT NOT NULL, id TEXT NOT NULL, url TEXT NOT NULL, secrets TEXT NOT NULL, events TEXT,
                    environments TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, id))
                    """,
                ]
            ),
            (
                8,
                [
                    // Keys the server makes once and every replica shares (the customer-state signing key).
                    "CREATE TABLE server_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at BIGINT NOT NULL)"
                ]
            ),
            (
                9,
                [
                    // Offerings: the whole document per version (the newest is in force).
                    """
                    CREATE TABLE offering_versions (app_id TEXT NOT NULL, version INTEGER NOT NULL, document TEXT NOT NULL,
                    actor TEXT NOT NULL, note TEXT, created_at BIGINT NOT NULL, PRIMARY KEY (app_id, version))
                    """,
                    """
                    CREATE TABLE experiment_enrolments (app_id TEXT NOT NULL, experiment_id TEXT NOT NULL, customer_id TEXT NOT NULL,
                    variant TEXT NOT NULL, enrolled_at BIGINT NOT NULL, PRIMARY KEY (app_id, experiment_id, customer_id))
                    """,
                ]
            ),
            (
                10,
                (dialect == .sqlite ? largeColumnsLast : [])
                    + [
                        "CREATE INDEX inbox_app_received ON notification_inbox (app_id, received_at)",
                        // The latest finished job of a kind (where the last sweep ended, when
                        // looks were last planned) and a kind's pending keys: one index seek,
                        // not a walk over every finished job (hourly jobs add 26,000 a year).
                        "CREATE INDEX jobs_kind ON jobs (app_id, kind, state, run_at)",
                    ]
            ),
            (
                11,
                [
                    // inbox_state_app (state, app_id, id) answers every query inbox_pending
                    // (state, id) did; each index is written with every row stored and every
                    // state a row goes through.
                    "DROP INDEX IF EXISTS inbox_pending"
                ]
            ),
            (
                12,
                [
                    // A notification's body (15 KB) in a table of its own: the inbox row goes
                    // through three states (stored, leased, processed), and SQLite rewrites a
                    // row whole when it changes size, its body's overflow pages included: two
                    // thirds of the bytes each notification wrote. The body is written once.
                    "CREATE TABLE notification_bodies (id \(dialect == .sqlite ? "INTEGER" : "BIGINT") PRIMARY KEY, body TEXT NOT NULL)",
                    "INSERT INTO notification_bodies (id, body) SELECT id, body FROM notification_inbox",
                    "ALTER TABLE notification_inbox DROP COLUMN body",
                ]
            ),
            (
                13,
                // Signed payloads are base64 of signatures and certificates: PostgreSQL's TOAST
                // compression (pglz) tried each one and, finding under the 25 % it asks for,
                // stored it as it was — a tenth of all CPU under a notification burst, for no
                // byte saved. They are now stored out of line uncompressed (rows written from
                // here on; stored ones are read as they are). SQLite does not compress.
                dialect == .postgresql
                    ? [
                        "ALTER TABLE notification_bodies ALTER COLUMN body SET STORAGE EXTERNAL",
                        "ALTER TABLE ledger ALTER COLUMN raw SET STORAGE EXTERNAL",
                    ] : []
            ),
            (
                14,
                // PostgreSQL writes a changed row as a new version; beside the old one on its
                // page, when there is room and no indexed column changed (a heap-only update),
                // no index is touched. A lease changes no indexed column, but the inbox's pages
                // were filled to the brim at insert: every claim wrote a new entry into each of
                // the table's eight indexes. Half of each new page is now left free, room for
                // each of its rows to be leased in place (the inbox is small: its bodies are
                // in a table of their own).
                dialect == .postgresql ? ["ALTER TABLE notification_inbox SET (fillfactor = 50)"] : []
            ),
            (
                15,
                [
                    // App account tokens are issued by the server (random, never derived): each
                    // customer's current one. The tokens a customer holds stay its aliases, so
                    // every token an earlier version linked (derived from the app and customer
                    // ids, or bound by an offer signature) stays its owner's, as issued; the
                    // newest of them becomes the current one.
                    """
                    CREATE TABLE app_account_tokens (app_id TEXT NOT NULL, customer_id TEXT NOT NULL, token TEXT NOT NULL,
                    issued_at BIGINT NOT NULL, PRIMARY KEY (app_id, customer_id))
                    """,
                    """
                    INSERT INTO app_account_tokens (app_id, customer_id, token, issued_at)
                    SELECT held.app_id, held.customer_id, held.value, held.created_at FROM customer_aliases AS held
                    WHERE held.kind = 'appAccountToken' AND NOT EXISTS (
                        SELECT 1 FROM customer_aliases AS newer WHERE newer.app_id = held.app_id AND newer.customer_id = held.customer_id
                        AND newer.kind = 'appAccountToken'
                        AND (newer.created_at > held.created_at OR (newer.created_at = held.created_at AND newer.value > held.value)))
                    """,
                ]
            ),
            (
                16,
                [
                    // The read side (docs/read-side.md): each chain's figures as one document and
                    // as rows, and their daily rollups in the app's time zone.
                    """
                    CREATE TABLE IF NOT EXISTS figure_chains (app_id TEXT NOT NULL, environment TEXT NOT NULL, chain TEXT NOT NULL,
                    facts INTEGER NOT NULL, time_zone TEXT NOT NULL, rows TEXT NOT NULL, customer TEXT, PRIMARY KEY (app_id, environment, chain))
                    """,
                    "CREATE INDEX IF NOT EXISTS figure_chains_customer ON figure_chains (app_id, environment, customer)",
                    """
                    CREATE TABLE IF NOT EXISTS figure_runs (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL, chain TEXT NOT NULL,
                    from_ms BIGINT NOT NULL, until_ms BIGINT, slots INTEGER NOT NULL, currency TEXT, amount BIGINT, denominator BIGINT)
                    """,
                    "CREATE INDEX IF NOT EXISTS figure_runs_chain ON figure_runs (app_id, environment, chain)",
                    """
                    CREATE TABLE IF NOT EXISTS figure_items (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL, chain TEXT NOT NULL,
                    kind TEXT NOT NULL, at_ms BIGINT NOT NULL, currency TEXT, amount BIGINT, denominator BIGINT,
                    proceeds_amount BIGINT, proceeds_denominator BIGINT)
                    """,
                    "CREATE INDEX IF NOT EXISTS figure_items_chain ON figure_items (app_id, environment, chain)",
                    """
                    CREATE TABLE IF NOT EXISTS figure_churn (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL, chain TEXT NOT NULL,
                    ended_ms BIGINT NOT NULL, from_ms BIGINT NOT NULL, until_ms BIGINT)
                    """,
                    "CREATE INDEX IF NOT EXISTS figure_churn_chain ON figure_churn (app_id, environment, chain)",
                    """
                    CREATE TABLE IF NOT EXISTS figure_days (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL, series TEXT NOT NULL,
                    day INTEGER NOT NULL, currency TEXT NOT NULL, denominator BIGINT NOT NULL, value BIGINT NOT NULL,
                    PRIMARY KEY (app_id, environment, grp, series, day, currency, denominator))
                    """,
                    """
                    CREATE TABLE IF NOT EXISTS figure_groups (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL,
                    chains INTEGER NOT NULL, PRIMARY KEY (app_id, environment, grp))
                    """,
                    """
                    CREATE TABLE IF NOT EXISTS figure_state (app_id TEXT NOT NULL, environment TEXT NOT NULL, settings TEXT NOT NULL,
                    resume_after TEXT, complete INTEGER NOT NULL, PRIMARY KEY (app_id, environment))
                    """,
                ] + figureReadIndexes.map(\.statement)
            ),
            (17, dialect == .sqlite ? clusteredFigureDays : figureDaysCoveringKey),
            (18, experimentOutcomes),
            // No statement: the records written again (below). Before this step a build or a
            // seed, which write many new chains at once, wrote no records for their customers.
            (19, []),
            (20, figureMonths(dialect)),
            // No statement: the V1 passwords an earlier version stored are removed (below),
            // once, rather than by reading the whole ledger at every start.
            (21, []),
            // The churn rows of a range are read with the spans their counting needs from the
            // index alone (figureReadIndexes builds it): a table row per span cost the Overview
            // 10 s on its first load at a million subscriptions. The exposed customers are
            // counted per variant in the order of an index, not sorted per request.
            (
                22,
                [
                    "DROP INDEX IF EXISTS figure_churn_ended",
                    "CREATE INDEX IF NOT EXISTS experiment_enrolments_variant ON experiment_enrolments (app_id, experiment_id, variant)",
                ]
            ),
            (23, experimentOutcomeSums),
            (24, leanInbox(dialect)),
            // Signed text stored compactly (``CompactSignedText``): each signing header once.
            (25, ["CREATE TABLE IF NOT EXISTS signing_headers (digest TEXT PRIMARY KEY, header TEXT NOT NULL)"]),
            // The inbox's indexes by state, which only a build before step 24 reads (a contract
            // step: it follows the steps that expand, so that a rolling deploy can stop between).
            (26, ["DROP INDEX IF EXISTS inbox_state_app", "DROP INDEX IF EXISTS inbox_state_received", "DROP INDEX IF EXISTS inbox_type"]),
            // Retention (``RetentionTable``): where each table's last pass stopped, and each
            // chain's event horizon, so that events removed are not derived again.
            (
                27,
                [
                    "CREATE TABLE IF NOT EXISTS retention_marks (name TEXT PRIMARY KEY, after_id BIGINT NOT NULL)",
                    """
                    CREATE TABLE IF NOT EXISTS event_horizons (app_id TEXT NOT NULL, original_transaction_id TEXT NOT NULL,
                    before_ms BIGINT NOT NULL, PRIMARY KEY (app_id, original_transaction_id))
                    """,
                ]
            ),
            // Each step's kind recorded as it is applied (expand or contract), so that a build
            // that does not know a newer step can tell whether it may run beside it (a rolling
            // deploy: ``newerSteps(_:)``).
            (28, ["ALTER TABLE schema_migrations ADD COLUMN kind TEXT"]),
            // What apps keep about their customers (``CustomerAttribute``), and on PostgreSQL
            // the customers in byte order for keyset pages whatever the database's collation.
            (29, customerAttributes(dialect)),
            // Each notification's and each event's trace context (W3C `traceparent`), written only
            // when tracing is on, so that processing and deliveries continue the trace of the
            // request that stored them (an expand step: nullable columns an older build ignores).
            (
                30,
                [
                    "ALTER TABLE notification_inbox ADD COLUMN trace_context TEXT",
                    "ALTER TABLE events ADD COLUMN trace_context TEXT",
                ]
            ),
        ]
    }

    /// An inbox row is written once, with every index it has, and not again in each state it
    /// goes through (#36: 16 index entries per notification on PostgreSQL, its lease and its
    /// outcome each a new row version).
    ///
    /// - The pending rows, with their leases, are a narrow table of their own, `inbox_queue`: a
    ///   row arrives with its inbox row and leaves with its outcome. Claims read it alone; a
    ///   lease changes no indexed column of it.
    /// - The rows retention may remove (rejected, duplicate) are listed in `inbox_discardable`, so
    ///   no index of the inbox is by state: an outcome changes no indexed column either (the
    ///   metadata is written when the row arrives, from the notification its admission
    ///   verified) and PostgreSQL keeps it beside the row (a heap-only update, no index entry).
    /// - Of the inbox's eight indexes six remain once step 26 drops the three by state: the id,
    ///   the idempotency key, the chain (a customer's notifications), the uuid (repeats), the type
    ///   (the scheduler's consumption requests, a list by type; new here, without the state) and
    ///   the time received (the app's latest, a list by time).
    ///
    /// Runs whole again if repeated.
    static func leanInbox(_ dialect: SQLStoreDialect) -> [String] {
        let pending = InboxState.pending.rawValue
        return [
            """
            CREATE TABLE IF NOT EXISTS inbox_queue (app_id TEXT NOT NULL, id BIGINT NOT NULL, chain TEXT, lease_owner TEXT, lease_until BIGINT,
            attempts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (app_id, id))
            """,
            "CREATE INDEX IF NOT EXISTS inbox_queue_chain ON inbox_queue (app_id, chain, id)",
            """
            INSERT INTO inbox_queue (app_id, id, chain, lease_owner, lease_until, attempts)
            SELECT app_id, id, CASE WHEN version = \(NotificationVersion.v2.rawValue) THEN original_transaction_id END, lease_owner, lease_until, attempts
            FROM notification_inbox WHERE state = '\(pending)'
            ON CONFLICT (app_id, id) DO NOTHING
            """,
            "UPDATE notification_inbox SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL",
            "CREATE TABLE IF NOT EXISTS inbox_discardable (id BIGINT PRIMARY KEY, received_at BIGINT NOT NULL)",
            """
            INSERT INTO inbox_discardable (id, received_at) SELECT id, received_at FROM notification_inbox
            WHERE state IN ('\(InboxState.rejected.rawValue)', '\(InboxState.duplicate.rawValue)') ON CONFLICT (id) DO NOTHING
            """,
            "CREATE INDEX IF NOT EXISTS inbox_app_type ON notification_inbox (app_id, notification_type, id)",
        ]
            // A lease is written beside its row: half of each page is left free for it.
            + (dialect == .postgresql ? ["ALTER TABLE inbox_queue SET (fillfactor = 50)"] : [])
    }

    /// The experiment records summed per variant and windows, kept with them
    /// (``SQLStore/writeExperimentRecords(appId:environment:owner:chains:keepingSums:_:)``): the results read
    /// a row per group instead of every exposed customer's record (100,000 at a million
    /// subscriptions, 100 ms a request), and only the records of sales after now, from an index
    /// by sale that holds what they read. Filled from the records already there; the step runs whole again if repeated.
    static let experimentOutcomeSums: [String] = [
        """
        CREATE TABLE IF NOT EXISTS experiment_outcome_sums (app_id TEXT NOT NULL, environment TEXT NOT NULL, experiment_id TEXT NOT NULL,
        variant TEXT NOT NULL, money TEXT NOT NULL, customers BIGINT NOT NULL, trials BIGINT NOT NULL, conversions BIGINT NOT NULL,
        paying BIGINT NOT NULL, refunded BIGINT NOT NULL, PRIMARY KEY (app_id, environment, experiment_id, variant, money))
        """,
        "DELETE FROM experiment_outcome_sums",
        """
        INSERT INTO experiment_outcome_sums (app_id, environment, experiment_id, variant, money, customers, trials, conversions, paying,
        refunded)
        SELECT app_id, environment, experiment_id, variant, money, COUNT(*), SUM(trial), SUM(converted), SUM(paying), SUM(refunded)
        FROM experiment_outcomes GROUP BY app_id, environment, experiment_id, variant, money
        """,
        // The records with a sale at or after an instant, with what their sums take; the
        // index of every record by its sums is no longer read.
        """
        CREATE INDEX IF NOT EXISTS experiment_outcomes_late ON experiment_outcomes
        (app_id, environment, experiment_id, last_sale, variant, money, trial, converted, paying, refunded)
        """,
        "DROP INDEX IF EXISTS experiment_outcomes_sums",
    ]

    /// The monthly rollups: each month's cells are the sums of its days' (the month keyed by the
    /// number of its first day), kept with them (``RollupChanges``), so that a long range reads
    /// its whole months rather than every day: a snapshot is a sum from the first day of the
    /// data, a cohort's from its start. Filled from the days already written.
    static func figureMonths(_ dialect: SQLStoreDialect) -> [String] {
        // The number of the first day of the month of day `day`, in each database's calendar
        // arithmetic (``FigureCalendar/monthStart(ofDay:)`` in Swift).
        let month =
            switch dialect {
            case .sqlite: "CAST(julianday(date(day * 86400, 'unixepoch', 'start of month')) - 2440587.5 AS INTEGER)"
            case .postgresql: "(CAST(date_trunc('month', CAST(DATE '1970-01-01' + CAST(day AS INTEGER) AS TIMESTAMP)) AS DATE) - DATE '1970-01-01')"
            }
        let (rowless, covering) =
            switch dialect {
            case .sqlite: (" WITHOUT ROWID", "")
            case .postgresql: ("", " INCLUDE (value)")
            }
        var statements = [
            """
            CREATE TABLE IF NOT EXISTS figure_months (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL, series TEXT NOT NULL,
            month INTEGER NOT NULL, currency TEXT NOT NULL, denominator BIGINT NOT NULL, value BIGINT NOT NULL,
            PRIMARY KEY (app_id, environment, grp, series, month, currency, denominator)\(covering))\(rowless)
            """,
            // From the days as they are, whatever a step run before left (the step is whole
            // again when it runs again).
            "DELETE FROM figure_months",
            """
            INSERT INTO figure_months (app_id, environment, grp, series, month, currency, denominator, value)
            SELECT app_id, environment, grp, series, \(month), currency, denominator, SUM(value) FROM figure_days
            GROUP BY app_id, environment, grp, series, \(month), currency, denominator HAVING SUM(value) <> 0
            """,
        ]
        if dialect == .postgresql {
            statements.append(
                "ALTER TABLE figure_months SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02)")
        }
        return statements
    }

    /// The indexes only the figure reads use, by group and instant (docs/read-side.md). The
    /// writes find a chain's rows by the chain's indexes, so a bulk load can drop these while it
    /// writes and build them once at its end, sorting each table once rather than inserting
    /// tens of millions of rows into them in no order (``SQLStore/deferringFigureReadIndexes(_:)``);
    /// every migration builds any that are missing (a bulk load that did not finish).
    static let figureReadIndexes: [(name: String, statement: String)] = [
        ("figure_runs_from", "CREATE INDEX IF NOT EXISTS figure_runs_from ON figure_runs (app_id, environment, grp, from_ms)"),
        ("figure_runs_until", "CREATE INDEX IF NOT EXISTS figure_runs_until ON figure_runs (app_id, environment, grp, until_ms)"),
        ("figure_items_at", "CREATE INDEX IF NOT EXISTS figure_items_at ON figure_items (app_id, environment, grp, at_ms)"),
        (
            "figure_churn_ended_spans",
            "CREATE INDEX IF NOT EXISTS figure_churn_ended_spans ON figure_churn (app_id, environment, grp, ended_ms, from_ms, until_ms)"
        ),
    ]

    /// Builds the figure read indexes that are missing; returns their names.
    static func buildMissingFigureReadIndexes(_ db: any SQLDatabase, dialect: SQLStoreDialect) async throws -> [String] {
        let present: SQLQueryString =
            switch dialect {
            case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'figure_%'"
            case .postgresql: "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'figure_%'"
            }
        let names = Set(try await db.raw(present).all().map { try $0.string("name") })
        let missing = figureReadIndexes.filter { !names.contains($0.name) }
        for index in missing { try await db.raw("\(unsafeRaw: index.statement)").run() }
        return missing.map(\.name)
    }

    /// Each exposed customer's outcome in an experiment, kept with the customer's figures
    /// (``ExperimentRecord``, docs/read-side.md): the results sum them per variant and windows,
    /// from an index that holds every column they read. Filled from the figures already built
    /// when the step runs (``SQLStore/writeExperimentRecords(appId:environment:owner:chains:keepingSums:_:)``).
    static func customerAttributes(_ dialect: SQLStoreDialect) -> [String] {
        let table = """
            CREATE TABLE IF NOT EXISTS customer_attributes (app_id TEXT NOT NULL, customer_id TEXT NOT NULL, key TEXT NOT NULL,
            value TEXT, updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, customer_id, key))
            """
        return switch dialect {
        case .sqlite: [table]
        case .postgresql: [table, #"CREATE INDEX IF NOT EXISTS customers_bytes ON customers (app_id, customer_id COLLATE "C")"#]
        }
    }

    static let experimentOutcomes: [String] = [
        """
        CREATE TABLE IF NOT EXISTS experiment_outcomes (app_id TEXT NOT NULL, environment TEXT NOT NULL, experiment_id TEXT NOT NULL,
        customer_id TEXT NOT NULL, variant TEXT NOT NULL, trial INTEGER NOT NULL, converted INTEGER NOT NULL, paying INTEGER NOT NULL,
        refunded INTEGER NOT NULL, money TEXT NOT NULL, last_sale BIGINT,
        PRIMARY KEY (app_id, environment, experiment_id, customer_id))
        """,
        """
        CREATE INDEX IF NOT EXISTS experiment_outcomes_sums ON experiment_outcomes
        (app_id, environment, experiment_id, variant, money, last_sale, trial, converted, paying, refunded)
        """,
        "CREATE INDEX IF NOT EXISTS experiment_outcomes_customer ON experiment_outcomes (app_id, environment, customer_id)",
        "CREATE INDEX IF NOT EXISTS experiment_enrolments_customer ON experiment_enrolments (app_id, customer_id)",
    ]

    /// A read of the daily rollups takes a group's cells of some series over a span of days. In
    /// a table with row ids those cells lie wherever their rows were first written, and the
    /// primary key's index sends each to a page of its own (a year of one product's money: about
    /// 8,000 cells, 40–100 ms at 100,000 subscriptions). Without row ids SQLite keeps the rows in
    /// the key's order, so the same read walks a few neighbouring pages (2–6 ms); an upsert finds
    /// its row in one tree instead of two. PostgreSQL keeps tables apart from their indexes:
    /// there the key's index carries the value too (``figureDaysCoveringKey``).
    static let clusteredFigureDays: [String] = [
        """
        CREATE TABLE figure_days_clustered (app_id TEXT NOT NULL, environment TEXT NOT NULL, grp TEXT NOT NULL, series TEXT NOT NULL,
        day INTEGER NOT NULL, currency TEXT NOT NULL, denominator BIGINT NOT NULL, value BIGINT NOT NULL,
        PRIMARY KEY (app_id, environment, grp, series, day, currency, denominator)) WITHOUT ROWID
        """,
        """
        INSERT INTO figure_days_clustered (app_id, environment, grp, series, day, currency, denominator, value)
        SELECT app_id, environment, grp, series, day, currency, denominator, value FROM figure_days
        """,
        "DROP TABLE figure_days",
        "ALTER TABLE figure_days_clustered RENAME TO figure_days",
    ]

    /// PostgreSQL: the primary key's index of the daily rollups includes the value, so a read of
    /// a group's days is answered from the index alone (an index-only scan) instead of a visit to
    /// the table's page of every cell: a year of one product's money went from 7,400 pages and
    /// 28 ms to 150 pages and 5 ms at 100,000 subscriptions. That takes pages the visibility map
    /// marks all-visible, which vacuum sets: the table is vacuumed after 2 % of its rows changed
    /// or arrived rather than PostgreSQL's 20 %, so only the days still changing are read from the
    /// table.
    static let figureDaysCoveringKey: [String] = [
        """
        ALTER TABLE figure_days DROP CONSTRAINT figure_days_pkey,
        ADD PRIMARY KEY (app_id, environment, grp, series, day, currency, denominator) INCLUDE (value)
        """,
        "ALTER TABLE figure_days SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02)",
    ]

    /// SQLite keeps a row's columns in the order of the table, and a signed payload (15 KB in
    /// the inbox, 12 KB in the ledger) spills into a chain of overflow pages: every column after
    /// it (state, times, leases) was read by walking that chain. The two tables are rebuilt with
    /// the payloads last, keeping every id, the `AUTOINCREMENT` counter (so an id removed by
    /// retention is never given again) and every index. PostgreSQL stores large values apart
    /// (TOAST) and needs nothing.
    static let largeColumnsLast: [String] = [
        """
        CREATE TABLE notification_inbox_reordered (id INTEGER PRIMARY KEY AUTOINCREMENT, app_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL, version INTEGER NOT NULL, received_at BIGINT NOT NULL, state TEXT NOT NULL,
        failure_reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, lease_owner TEXT, lease_until BIGINT, processed_at BIGINT,
        notification_uuid TEXT, notification_type TEXT, subtype TEXT, original_transaction_id TEXT, signed_at BIGINT,
        environment TEXT, headers TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (app_id, idempotency_key))
        """,
        """
        INSERT INTO notification_inbox_reordered (id, app_id, idempotency_key, version, received_at, state, failure_reason,
        attempts, lease_owner, lease_until, processed_at, notification_uuid, notification_type, subtype, original_transaction_id,
        signed_at, environment, headers, body)
        SELECT id, app_id, idempotency_key, version, received_at, state, failure_reason, attempts, lease_owner, lease_until,
        processed_at, notification_uuid, notification_type, subtype, original_transaction_id, signed_at, environment, headers, body
        FROM notification_inbox ORDER BY id
        """,
        """
        CREATE TABLE ledger_reordered (id INTEGER PRIMARY KEY AUTOINCREMENT, app_id TEXT NOT NULL, fact_key TEXT NOT NULL,
        kind TEXT NOT NULL, customer_id TEXT, original_transaction_id TEXT, transaction_id TEXT, source TEXT NOT NULL,
        signed_at BIGINT, recorded_at BIGINT NOT NULL, fact TEXT NOT NULL, raw TEXT, UNIQUE (app_id, fact_key))
        """,
        """
        INSERT INTO ledger_reordered (id, app_id, fact_key, kind, customer_id, original_transaction_id, transaction_id, source,
        signed_at, recorded_at, fact, raw)
        SELECT id, app_id, fact_key, kind, customer_id, original_transaction_id, transaction_id, source, signed_at, recorded_at,
        fact, raw FROM ledger ORDER BY id
        """,
        """
        UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'notification_inbox'), 0))
        WHERE name = 'notification_inbox_reordered'
        """,
        """
        UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'ledger'), 0))
        WHERE name = 'ledger_reordered'
        """,
        "DROP TABLE notification_inbox",
        "DROP TABLE ledger",
        "ALTER TABLE notification_inbox_reordered RENAME TO notification_inbox",
        "ALTER TABLE ledger_reordered RENAME TO ledger",
        "CREATE INDEX inbox_pending ON notification_inbox (state, id)",
        "CREATE INDEX inbox_chain ON notification_inbox (app_id, original_transaction_id)",
        "CREATE INDEX inbox_uuid ON notification_inbox (app_id, notification_uuid)",
        "CREATE INDEX inbox_type ON notification_inbox (app_id, notification_type, state, id)",
        "CREATE INDEX inbox_state_app ON notification_inbox (state, app_id, id)",
        "CREATE INDEX inbox_state_received ON notification_inbox (state, received_at)",
        "CREATE INDEX ledger_chain ON ledger (app_id, original_transaction_id)",
        "CREATE INDEX ledger_customer ON ledger (app_id, customer_id)",
        "CREATE INDEX ledger_transaction ON ledger (app_id, transaction_id)",
        "CREATE INDEX ledger_recorded ON ledger (app_id, recorded_at)",
    ]
}
