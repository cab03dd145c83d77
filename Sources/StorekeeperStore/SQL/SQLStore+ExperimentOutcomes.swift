import Foundation
import SQLKit
import SubscriptionAnalytics

extension SQLStore {
    /// Rewrites the experiment records (``ExperimentRecord``) of `owner`'s customer in
    /// `environment` inside the caller's transaction, from the figures of all of the customer's
    /// chains there (`chains`): one per enrolment, none for an outcome with nothing in it. A
    /// chain that owns itself is no customer's, and no experiment's.
    static func writeExperimentRecords(
        appId: String, environment: String, owner: String, chains: [ChainFigures], _ db: any SQLDatabase
    ) async throws {
        guard let customer = FigureUpdate.customer(ofOwner: owner) else { return }
        try await lockRecords(appId: appId, customer: customer, db)
        let enrolments = try await db.raw(
            "SELECT experiment_id, variant, enrolled_at FROM experiment_enrolments WHERE app_id = \(bind: appId) AND customer_id = \(bind: customer)"
        ).all()
        guard !enrolments.isEmpty else { return }
        try await db.raw(
            """
            DELETE FROM experiment_outcomes WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND customer_id = \(bind: customer)
            """
        ).run()
        for enrolment in enrolments {
            let record = ExperimentRecord(of: chains, exposure: try enrolment.date("enrolled_at"), days: ExperimentOutcome.windows)
            guard !record.isEmpty else { continue }
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
    }

    /// Rewrites the experiment records of `customer` in every environment it has figures in:
    /// after it is enrolled.
    static func writeExperimentRecords(appId: String, customer: String, _ db: any SQLDatabase) async throws {
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
            try await writeExperimentRecords(appId: appId, environment: environment, owner: owner, chains: chains, db)
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

    /// Schema 18: the records of every enrolled customer, from the figures already built.
    static func writeAllExperimentRecords(_ db: any SQLDatabase) async throws {
        let customers = try await db.raw("SELECT DISTINCT app_id, customer_id FROM experiment_enrolments ORDER BY app_id, customer_id").all()
        for row in customers {
            try await writeExperimentRecords(appId: try row.string("app_id"), customer: try row.string("customer_id"), db)
        }
    }

    public func experimentOutcomeSums(appId: String, environment: String, experimentId: String, now: Date) async throws -> ExperimentOutcomeSums {
        let at = now.millisecondsSince1970
        return try await backend.read { db in
            var sums = ExperimentOutcomeSums()
            // Records first: each is written with its enrolment, so the enrolments counted after
            // them include every one they belong to.
            sums.groups = try await db.raw(
                """
                SELECT variant, money, COUNT(*) AS customers, SUM(trial) AS trials, SUM(converted) AS conversions, SUM(paying) AS paying,
                SUM(refunded) AS refunded FROM experiment_outcomes
                WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND experiment_id = \(bind: experimentId)
                AND (last_sale IS NULL OR last_sale < \(bind: at)) GROUP BY variant, money
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
