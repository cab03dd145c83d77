import Foundation
import SQLKit
import SubscriptionAnalytics

extension SQLStore {
    /// Rewrites the experiment records (``ExperimentRecord``) of `owner`'s customer in
    /// `environment` inside the caller's transaction, from the figures of all of the customer's
    /// chains there (`chains`): one per enrolment, none for an outcome with nothing in it. A
    /// chain that owns itself is no customer's, and no experiment's. `keepingSums`: the
    /// difference goes to the sums per variant and windows (schema 23's step fills them from
    /// the records a migration's earlier steps write).
    static func writeExperimentRecords(
        appId: String, environment: String, owner: String, chains: [ChainFigures], keepingSums: Bool, _ db: any SQLDatabase
    ) async throws {
        guard let customer = FigureUpdate.customer(ofOwner: owner) else { return }
        try await lockRecords(appId: appId, customer: customer, db)
        let enrolments = try await db.raw(
            "SELECT experiment_id, variant, enrolled_at FROM experiment_enrolments WHERE app_id = \(bind: appId) AND customer_id = \(bind: customer)"
        ).all()
        guard !enrolments.isEmpty else { return }
        let customerRecords: SQLQueryString =
            " WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND customer_id = \(bind: customer)"
        var sums = OutcomeSumChanges()
        // The old records go, and what they added to the sums with them (one statement).
        let returning: SQLQueryString = keepingSums ? " RETURNING experiment_id, variant, money, trial, converted, paying, refunded" : ""
        for row in try await db.raw("DELETE FROM experiment_outcomes" + customerRecords + returning).all() {
            sums.add(
                OutcomeSumChanges.Key(
                    experiment: try row.string("experiment_id"), variant: try row.string("variant"), money: try row.string("money")),
                OutcomeSumChanges.Counts(
                    customers: -1, trials: -(try row.int("trial")), conversions: -(try row.int("converted")), paying: -(try row.int("paying")),
                    refunded: -(try row.int("refunded"))))
        }
        for enrolment in enrolments {
            let record = ExperimentRecord(of: chains, exposure: try enrolment.date("enrolled_at"), days: ExperimentOutcome.windows)
            guard !record.isEmpty else { continue }
            if keepingSums {
                sums.add(
                    OutcomeSumChanges.Key(
                        experiment: try enrolment.string("experiment_id"), variant: try enrolment.string("variant"), money: record.moneyText),
                    OutcomeSumChanges.Counts(of: record))
            }
            try await db.raw(
                """
                INSERT INTO experiment_outcomes (app_id, environment, experiment_id, customer_id, variant, trial, converted, paying,
                refunded, money, last_sale)
                VALUES (\(bind: appId), \(bind: environment), \(bind: try enrolment.string("experiment_id")), \(bind: customer),
                \(bind: try enrolment.string("variant")), \(bind: record.trialStarted ? 1 : 0), \(bind: record.converted ? 1 : 0),
                \(bind: record.paying ? 1 : 0), \(bind: record.refunded ? 1 : 0), \(bind: record.moneyText),
                \(bind: record.lastSale?.millisecondsSince1970))
                """
            ).run()
        }
        try await sums.write(appId: appId, environment: environment, db)
    }

    /// Rewrites the experiment records of `customer` in every environment it has figures in:
    /// after it is enrolled.
    static func writeExperimentRecords(appId: String, customer: String, keepingSums: Bool, _ db: any SQLDatabase) async throws {
        let owner = FigureUpdate.owner(customer: customer)
        try await lockRecords(appId: appId, customer: customer, db)
        for environment in try await figureEnvironments(appId: appId, db) {
            // By the index of a customer's chains (an order of the chains would have SQLite walk
            // every chain of the environment in the key's order instead).
            let chains = try await db.raw(
                """
                SELECT rows FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment)
                AND customer = \(bind: owner)
                """
            ).all().map { try document($0, keeping: { $0.isEmpty }) }
            guard !chains.isEmpty else { continue }
            try await writeExperimentRecords(appId: appId, environment: environment, owner: owner, chains: chains, keepingSums: keepingSums, db)
        }
    }

    /// The environments `appId` has figures in or being built: Apple's two, and any other a
    /// build was started for.
    static func figureEnvironments(appId: String, _ db: any SQLDatabase) async throws -> [String] {
        let started = try await db.raw("SELECT environment FROM figure_state WHERE app_id = \(bind: appId)").all().map {
            try $0.string("environment")
        }
        return Set(started + ["Production", "Sandbox"]).sorted()
    }

    /// On PostgreSQL, takes the customer's records until the transaction ends before its
    /// enrolments or chains are read: an enrolment and a change of the customer's figures
    /// written at once by two transactions take turns, so the second sees what the first wrote
    /// (else each could compute the records without the other's part). SQLite has one writer.
    static func lockRecords(appId: String, customer: String, _ db: any SQLDatabase) async throws {
        guard db.dialect.name == "postgresql" else { return }
        // FNV-1a of the app and the customer: a lock key of 64 bits.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "experiment-records\u{0}\(appId)\u{0}\(customer)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        try await db.raw("SELECT pg_advisory_xact_lock(\(bind: Int64(bitPattern: hash)))").run()
    }

    /// Schema 18 (and 19): the records of every enrolled customer, from the figures already
    /// built. Their sums are left to schema 23's step, which fills them from the records.
    static func writeAllExperimentRecords(_ db: any SQLDatabase) async throws {
        let customers = try await db.raw("SELECT DISTINCT app_id, customer_id FROM experiment_enrolments ORDER BY app_id, customer_id").all()
        for row in customers {
            try await writeExperimentRecords(appId: try row.string("app_id"), customer: try row.string("customer_id"), keepingSums: false, db)
        }
    }

    public func experimentOutcomeSums(appId: String, environment: String, experimentId: String, now: Date) async throws -> ExperimentOutcomeSums {
        let at = now.millisecondsSince1970
        return try await backend.read { db in
            var sums = ExperimentOutcomeSums()
            // Records first: each is written with its enrolment, so the enrolments counted after
            // them include every one they belong to. The sums of every record less those of the
            // records with a sale at or after now, in one statement (one snapshot of both).
            sums.groups = try await db.raw(
                """
                SELECT s.variant, s.money, s.customers - COALESCE(l.customers, 0) AS customers, s.trials - COALESCE(l.trials, 0) AS trials,
                s.conversions - COALESCE(l.conversions, 0) AS conversions, s.paying - COALESCE(l.paying, 0) AS paying,
                s.refunded - COALESCE(l.refunded, 0) AS refunded FROM experiment_outcome_sums s LEFT JOIN (
                SELECT variant, money, COUNT(*) AS customers, SUM(trial) AS trials, SUM(converted) AS conversions, SUM(paying) AS paying,
                SUM(refunded) AS refunded FROM experiment_outcomes
                WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND experiment_id = \(bind: experimentId)
                AND last_sale >= \(bind: at) GROUP BY variant, money) l ON l.variant = s.variant AND l.money = s.money
                WHERE s.app_id = \(bind: appId) AND s.environment = \(bind: environment) AND s.experiment_id = \(bind: experimentId)
                AND s.customers - COALESCE(l.customers, 0) > 0
                """
            ).all().map { row in
                ExperimentOutcomeSums.Group(
                    variant: try row.string("variant"), moneyText: try row.string("money"), customers: try row.int("customers"),
                    trialsStarted: try row.int("trials"), trialConversions: try row.int("conversions"), paying: try row.int("paying"),
                    refunded: try row.int("refunded"))
            }
            sums.unsettled = try await db.raw(
                """
                SELECT e.* FROM experiment_outcomes o JOIN experiment_enrolments e
                ON e.app_id = o.app_id AND e.experiment_id = o.experiment_id AND e.customer_id = o.customer_id
                WHERE o.app_id = \(bind: appId) AND o.environment = \(bind: environment) AND o.experiment_id = \(bind: experimentId)
                AND o.last_sale >= \(bind: at)
                """
            ).all().map(Self.enrolment)
            for row in try await db.raw(
                """
                SELECT variant, COUNT(*) AS exposed FROM experiment_enrolments WHERE app_id = \(bind: appId)
                AND experiment_id = \(bind: experimentId) GROUP BY variant
                """
            ).all() {
                sums.exposed[try row.string("variant")] = try row.int("exposed")
            }
            // In Swift's order of the strings, whatever the database's collation.
            sums.groups.sort { ($0.variant, $0.moneyText) < ($1.variant, $1.moneyText) }
            sums.unsettled.sort { $0.customerId < $1.customerId }
            return sums
        }
    }
}

/// What a transaction's records change in the sums per variant and windows
/// (`experiment_outcome_sums`), written with one statement.
struct OutcomeSumChanges {
    struct Key: Hashable, Comparable {
        var experiment: String
        var variant: String
        var money: String

        static func < (a: Key, b: Key) -> Bool { (a.experiment, a.variant, a.money) < (b.experiment, b.variant, b.money) }
    }

    /// What records add to a key's sums (a record removed: their negation).
    struct Counts: Equatable {
        var customers = 0
        var trials = 0
        var conversions = 0
        var paying = 0
        var refunded = 0

        /// What `record` adds.
        init(of record: ExperimentRecord) {
            (customers, trials, conversions, paying, refunded) = (
                1, record.trialStarted ? 1 : 0, record.converted ? 1 : 0, record.paying ? 1 : 0, record.refunded ? 1 : 0
            )
        }

        init(customers: Int = 0, trials: Int = 0, conversions: Int = 0, paying: Int = 0, refunded: Int = 0) {
            (self.customers, self.trials, self.conversions, self.paying, self.refunded) = (customers, trials, conversions, paying, refunded)
        }

        static func += (a: inout Counts, b: Counts) {
            a = Counts(
                customers: a.customers + b.customers, trials: a.trials + b.trials, conversions: a.conversions + b.conversions,
                paying: a.paying + b.paying, refunded: a.refunded + b.refunded)
        }
    }

    private var changes: [Key: Counts] = [:]

    /// Adds `counts` to the changes of `key`.
    mutating func add(_ key: Key, _ counts: Counts) {
        changes[key, default: Counts()] += counts
    }

    /// Adds the changes to the sums, in the keys' order (concurrent transactions on PostgreSQL
    /// take the rows' locks in one order); a record rewritten as it was changes nothing.
    func write(appId: String, environment: String, _ db: any SQLDatabase) async throws {
        let changed = changes.filter { $0.value != Counts() }.sorted { $0.key < $1.key }
        guard !changed.isEmpty else { return }
        var query: SQLQueryString = """
            INSERT INTO experiment_outcome_sums (app_id, environment, experiment_id, variant, money, customers, trials, conversions,
            paying, refunded) VALUES
            """
        for (position, (key, counts)) in changed.enumerated() {
            query += position == 0 ? " (" : ", ("
            query += "\(bind: appId), \(bind: environment), \(bind: key.experiment), \(bind: key.variant), \(bind: key.money)"
            for value in [counts.customers, counts.trials, counts.conversions, counts.paying, counts.refunded] { query += ", \(bind: Int64(value))" }
            query += ")"
        }
        query += """
             ON CONFLICT (app_id, environment, experiment_id, variant, money) DO UPDATE SET
            customers = experiment_outcome_sums.customers + excluded.customers, trials = experiment_outcome_sums.trials + excluded.trials,
            conversions = experiment_outcome_sums.conversions + excluded.conversions,
            paying = experiment_outcome_sums.paying + excluded.paying, refunded = experiment_outcome_sums.refunded + excluded.refunded
            """
        try await db.raw(query).run()
    }
}
