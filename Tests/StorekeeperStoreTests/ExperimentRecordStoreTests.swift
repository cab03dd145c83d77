import Foundation
import SQLKit
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

@testable import StorekeeperStore

/// Experiment records kept with the figures: whatever the order in which facts and enrolments
/// arrive, the store's sums per variant are those of the records computed from the customers'
/// chains as they end up; records counting a sale at or after now are named instead of summed;
/// a figure reset removes them, and schemas 18 and 19 fill them from the figures already built;
/// figures of many new chains written at once bring them too.
@Suite("Store: experiment records kept with the figures")
struct ExperimentRecordStoreTests {
    typealias Figures = FigureStoreTests

    /// Customers 0–6 in experiment `price` (variant by parity) and three of them in `other`,
    /// exposed 20 days apart.
    static let enrolments: [ExperimentEnrolment] =
        (0..<7).map { number in
            ExperimentEnrolment(
                appId: "app", experimentId: "price", customerId: "customer-\(number)", variant: number % 2 == 0 ? "control" : "cheaper",
                enrolledAt: Figures.t0 + Double(20 * number) * Figures.day + 0.25 * Figures.day)
        }
        + (0..<3).map { number in
            ExperimentEnrolment(
                appId: "app", experimentId: "other", customerId: "customer-\(number)", variant: "only", enrolledAt: Figures.t0 + 5 * Figures.day)
        }

    /// The sums the definition gives: each enrolment's record from its customer's chains' figures
    /// computed afresh, grouped by variant and windows.
    static func expected(_ ledgers: [String: [LedgerEntry]], experiment: String, now: Date) -> ExperimentOutcomeSums {
        var sums = ExperimentOutcomeSums()
        for enrolment in enrolments where enrolment.experimentId == experiment {
            let chains = ledgers.filter { Figures.customer(of: $0.key) == enrolment.customerId }.sorted { $0.key < $1.key }.map {
                Figures.analytics.figures(ofChain: PurchaseHistory(ledger: $0.value))
            }
            sums.add(ExperimentRecord(of: chains, exposure: enrolment.enrolledAt, days: ExperimentOutcome.windows), of: enrolment, now: now)
        }
        return sums
    }

    @Test("records follow facts and enrolments arriving in any order; sums per variant equal the definition's", arguments: TestBackend.available)
    func keptWithTheFigures(backend: TestBackend) async throws {
        let shuffled = Figures.shuffled(Figures.facts(seed: 11, chains: 40), seed: 5)
        // Enrolments arrive before any fact, midway, and after the last one.
        let enrolledAtStep = Dictionary(grouping: Self.enrolments.indices, by: { [0, shuffled.count / 2, shuffled.count][$0 % 3] })
        try await withTestStore(backend) { store in
            var ledgers: [String: [LedgerEntry]] = [:]
            for step in 0...shuffled.count {
                let at = Figures.t0 + Double(step)
                var changeset = Changeset(appId: "app", at: at)
                changeset.enrolments = (enrolledAtStep[step] ?? []).map { Self.enrolments[$0] }
                if step < shuffled.count {
                    let fact = shuffled[step]
                    let chain = fact.originalTransactionId ?? "-"
                    let entry = LedgerEntry(
                        appId: "app", fact: fact, customerId: Figures.customer(of: chain), source: .notificationV2, recordedAt: at)
                    ledgers[chain, default: []].append(entry)
                    changeset.entries = [entry]
                    changeset.figures = [Figures.update(ledgers[chain]!, chain: chain, facts: ledgers[chain]!.count, at: at)]
                }
                try await store.apply(changeset)
            }
            var sawUnsettled = false
            for now in [Figures.t0 + 61.3 * Figures.day, Figures.t0 + 120.6 * Figures.day, Figures.t0 + 900 * Figures.day] {
                for experiment in ["price", "other"] {
                    let stored = try await store.experimentOutcomeSums(appId: "app", environment: "Production", experimentId: experiment, now: now)
                    let expected = Self.expected(ledgers, experiment: experiment, now: now)
                    #expect(stored == expected, "\(backend): \(experiment) at \(now)")
                    sawUnsettled = sawUnsettled || !expected.unsettled.isEmpty
                }
            }
            // The population reaches records of every kind: summed with money, with each flag,
            // and named for a sale after now.
            let late = Self.expected(ledgers, experiment: "price", now: Figures.t0 + 900 * Figures.day)
            #expect(sawUnsettled)
            #expect(late.groups.contains { !$0.moneyText.isEmpty } && late.groups.contains { $0.trialsStarted > 0 })
            #expect(late.groups.contains { $0.paying > 0 } && late.groups.contains { $0.refunded > 0 })
            #expect(try await store.experimentOutcomeSums(appId: "app", environment: "Sandbox", experimentId: "price", now: Date()).groups.isEmpty)
            #expect(
                try await store.experimentOutcomeSums(appId: "other-app", environment: "Production", experimentId: "price", now: Date()) == .init())

            guard let sql = store as? SQLStore else { return }
            // Schema 18's step fills the records of every enrolled customer from the figures,
            // schema 23's their sums from the records.
            let now = Figures.t0 + 120.6 * Figures.day
            try await sql.backend.transaction { db in
                try await db.raw("DELETE FROM experiment_outcomes").run()
                try await db.raw("UPDATE experiment_outcome_sums SET customers = customers + 5, paying = 0").run()
                try await db.raw("DELETE FROM schema_migrations WHERE version >= 18").run()
            }
            #expect(try await sql.migrate() == Array(18...SQLStore.latestSchemaVersion))
            let filled = try await sql.experimentOutcomeSums(appId: "app", environment: "Production", experimentId: "price", now: now)
            #expect(filled == Self.expected(ledgers, experiment: "price", now: now), "\(backend): filled by the migration")
            // A reset of the figures removes their records with them.
            try await sql.resetFigures(appId: "app", environment: "Production", settings: "new")
            let reset = try await sql.experimentOutcomeSums(appId: "app", environment: "Production", experimentId: "price", now: now)
            #expect(reset.groups.isEmpty && reset.unsettled.isEmpty && reset.exposed == ["control": 4, "cheaper": 3])
        }
    }

    @Test("figures of many new chains written at once (a build, a seed) bring their enrolled customers' records", arguments: TestBackend.available)
    func keptByTheBulkPath(backend: TestBackend) async throws {
        let facts = Figures.facts(seed: 11, chains: 40)
        try await withTestStore(backend) { store in
            var enrolling = Changeset(appId: "app", at: Figures.t0)
            enrolling.enrolments = Self.enrolments
            try await store.apply(enrolling)
            var ledgers: [String: [LedgerEntry]] = [:]
            var changeset = Changeset(appId: "app", at: Figures.t0 + 1)
            for fact in facts {
                let chain = fact.originalTransactionId ?? "-"
                let entry = LedgerEntry(
                    appId: "app", fact: fact, customerId: Figures.customer(of: chain), source: .import, recordedAt: Figures.t0 + 1)
                ledgers[chain, default: []].append(entry)
                changeset.entries.append(entry)
            }
            changeset.figures = ledgers.keys.sorted().map { chain in
                Figures.update(ledgers[chain]!, chain: chain, facts: ledgers[chain]!.count, at: Figures.t0 + 1)
            }
            try await store.apply([changeset])
            for now in [Figures.t0 + 61.3 * Figures.day, Figures.t0 + 900 * Figures.day] {
                for experiment in ["price", "other"] {
                    let stored = try await store.experimentOutcomeSums(appId: "app", environment: "Production", experimentId: experiment, now: now)
                    let expected = Self.expected(ledgers, experiment: experiment, now: now)
                    #expect(!expected.groups.isEmpty)
                    #expect(stored == expected, "\(backend): \(experiment) at \(now)")
                }
            }
            guard let sql = store as? SQLStore else { return }
            // A database at schema 18 built without them: schema 19's step writes them.
            let now = Figures.t0 + 900 * Figures.day
            try await sql.backend.transaction { db in
                try await db.raw("DELETE FROM experiment_outcomes").run()
                try await db.raw("DELETE FROM experiment_outcome_sums").run()
                try await db.raw("DELETE FROM schema_migrations WHERE version >= 19").run()
            }
            #expect(try await sql.experimentOutcomeSums(appId: "app", environment: "Production", experimentId: "price", now: now).groups.isEmpty)
            #expect(try await sql.migrate() == Array(19...SQLStore.latestSchemaVersion))
            let filled = try await sql.experimentOutcomeSums(appId: "app", environment: "Production", experimentId: "price", now: now)
            #expect(filled == Self.expected(ledgers, experiment: "price", now: now), "\(backend): filled by schema 19")
        }
    }
}
