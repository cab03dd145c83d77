import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

extension StorekeeperAPI {
    package struct ExperimentResultsResponse: ResponseEncodable {
        package struct Variant: Encodable {
            package var id: String
            package var offering: String
            package var exposed: Int
            package var trialsStarted: Int
            package var trialConversions: Int
            package var payingCustomers: Int
            package var refunds: Int
            /// Revenue and proceeds per exposed customer realized within 7, 14 and 30 days of
            /// exposure, in the reporting currency.
            package var revenuePerExposed: [String: Decimal]
            package var proceedsPerExposed: [String: Decimal]
            /// Retention placements only: the exposed customers whose period (the one current at
            /// their first cancellation sheet) has ended, those among them still renewing at its
            /// end (saved), and those whose period has not ended yet.
            package var retention: RetentionSaves?
        }
        package struct RetentionSaves: Encodable {
            package var decided: Int
            package var saved: Int
            package var pending: Int
            package var saveRate: Double?
        }
        package var experiment: String
        package var status: String
        package var winner: String?
        package var environment: String
        package var currency: String
        package var asOf: Date
        package var variants: [Variant]
        /// Paying customers per exposed customer: Beta-Binomial posteriors.
        package var conversion: [ExperimentStatistics.Comparison]
        /// 30-day revenue per exposed customer: the Bayesian bootstrap.
        package var revenuePerCustomer: [ExperimentStatistics.Comparison]
        /// Retention placements only: saves per decided customer, Beta-Binomial posteriors.
        package var saves: [ExperimentStatistics.Comparison]?
    }

    /// `GET /v1/apps/{appId}/experiments/{id}/results[?environment=Sandbox]` (admin): per variant,
    /// what its exposed customers did after exposure, and the statistics (docs/offerings.md, "Experiments").
    package func experimentResults(_ request: Request, _ context: APIRequestContext) async throws -> ExperimentResultsResponse {
        let app = try context.caller().app
        let id = try context.pathParameter("experimentId")
        let environment = request.uri.queryParameters.get("environment").map { String($0) }
        guard [nil, "Production", "Sandbox"].contains(environment) else { throw APIError.badRequest("environment must be Production or Sandbox") }
        do {
            guard let results = try await experimentResults(app: app, id: id, environment: environment) else { throw APIError.notFound }
            return results
        } catch let building as FiguresBuilding {
            throw APIError.retryLater(building.description)
        }
    }

    /// An experiment's results now (`nil` for an unknown experiment), in `environment` (the
    /// app's Production when it takes it, else Sandbox). Throws ``FiguresBuilding`` while the
    /// figures are being built and the ledger is too large to replay.
    package func experimentResults(app: AppRuntime, id: String, environment: String?) async throws -> ExperimentResultsResponse? {
        let (_, document) = try await offerings(app: app)
        guard let experiment = document.experiment(id) else { return nil }
        let environment = environment ?? (app.accepts(.production) ? "Production" : "Sandbox")
        let now = clock()
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.configuration.analytics, environment: environment)
        var tallies: [String: VariantTally]
        switch try await FigureSource(store: reads).reading(of: app.configuration, environment: environment) {
        case .built:
            tallies = try await maintainedTallies(app: app, experimentId: id, environment: environment, analytics: analytics, now: now)
        case .replay:
            // While the figures are being built: from each exposed customer's ledger.
            tallies = [:]
            for enrolment in try await store.enrolments(appId: app.id, experimentId: id) {
                let ledger = try await store.ledger(appId: app.id, customerId: enrolment.customerId)
                let chains = Dictionary(grouping: ledger, by: { $0.fact.originalTransactionId ?? "-" }).values.map {
                    analytics.figures(ofChain: PurchaseHistory(ledger: $0))
                }
                let outcome = analytics.experimentOutcome(of: chains, exposure: enrolment.enrolledAt, now: now, days: ExperimentOutcome.windows)
                tallies[enrolment.variant, default: VariantTally()].add(outcome)
            }
        }
        let retention = document.placement(experiment.placement)?.kind == .retention
        let saves = retention ? try await retentionSaves(app: app, experimentId: id, environment: environment, now: now) : [:]
        var variants: [ExperimentResultsResponse.Variant] = []
        var saveCounts: [(id: String, exposed: Int, converted: Int)] = []
        var conversions: [(id: String, exposed: Int, converted: Int)] = []
        var revenues: [(id: String, counts: [Double: Int])] = []
        for variant in experiment.variants {
            let tally = tallies[variant.id] ?? VariantTally()
            var row = ExperimentResultsResponse.Variant(
                id: variant.id, offering: variant.offering, exposed: tally.exposed, trialsStarted: tally.trialsStarted,
                trialConversions: tally.trialConversions, payingCustomers: tally.paying, refunds: tally.refunded,
                revenuePerExposed: [:], proceedsPerExposed: [:])
            for days in ExperimentOutcome.windows {
                let divisor = Decimal(max(1, row.exposed))
                row.revenuePerExposed["\(days)d"] = CustomerEvents.rounded((tally.revenue[days] ?? 0) / divisor)
                row.proceedsPerExposed["\(days)d"] = CustomerEvents.rounded((tally.proceeds[days] ?? 0) / divisor)
            }
            if retention {
                let tally = saves[variant.id] ?? RetentionTally()
                row.retention = .init(
                    decided: tally.decided, saved: tally.saved, pending: tally.pending,
                    saveRate: tally.decided == 0 ? nil : Double(tally.saved) / Double(tally.decided))
                saveCounts.append((variant.id, tally.decided, tally.saved))
            }
            variants.append(row)
            conversions.append((variant.id, row.exposed, row.payingCustomers))
            revenues.append((variant.id, tally.revenueCounts))
        }
        let seed = UInt64(truncatingIfNeeded: ExperimentAssignment.bucket(experimentId: id, customerId: "statistics"))
        return ExperimentResultsResponse(
            experiment: id, status: experiment.status.rawValue, winner: experiment.winner, environment: environment,
            currency: app.configuration.analytics.reportingCurrency, asOf: now, variants: variants,
            conversion: await ExperimentStatistics.conversions(conversions, seed: seed),
            revenuePerCustomer: await ExperimentStatistics.amounts(revenues, seed: seed),
            saves: retention ? await ExperimentStatistics.conversions(saveCounts, seed: seed) : nil)
    }

    /// A retention variant's customers: decided (their period ended), saved, pending.
    package struct RetentionTally {
        package var decided = 0
        package var saved = 0
        package var pending = 0
    }

    /// Per variant of a retention experiment, whether each exposed customer was saved: the
    /// subscription current at their first cancellation sheet (its auto-renewable chain in the
    /// environment, the latest-ending one if several) still renewing at the last instant of that
    /// period (auto-renew on, or a next period begun); a period that has not ended yet is pending. Reads the exposed customers' ledgers
    /// (a cost in proportion to the customers the results count).
    private func retentionSaves(app: AppRuntime, experimentId: String, environment: String, now: Date) async throws -> [String: RetentionTally] {
        var tallies: [String: RetentionTally] = [:]
        for enrolment in try await store.enrolments(appId: app.id, experimentId: experimentId) {
            let history = PurchaseHistory(ledger: try await store.ledger(appId: app.id, customerId: enrolment.customerId))
            let atExposure = CustomerState(history: history, catalog: app.catalog, at: enrolment.enrolledAt)
            let current = atExposure.subscriptions.filter { subscription in
                (history.purchases[subscription.transactionId]?.environment.map { $0 == environment } ?? true)
                    && (subscription.expiresDate.map { $0 > enrolment.enrolledAt } ?? false)
            }.max { ($0.expiresDate ?? .distantPast) < ($1.expiresDate ?? .distantPast) }
            guard let current, let end = current.expiresDate else { continue }
            if end > now {
                tallies[enrolment.variant, default: RetentionTally()].pending += 1
                continue
            }
            let atEnd = CustomerState(history: history, catalog: app.catalog, at: end.addingTimeInterval(-0.001))
            tallies[enrolment.variant, default: RetentionTally()].decided += 1
            // Still renewing: auto-renew on at the period's last instant, or a next period began.
            let renewed =
                CustomerState(history: history, catalog: app.catalog, at: end.addingTimeInterval(1))
                .subscription(current.originalTransactionId)?.expiresDate.map { $0 > end.addingTimeInterval(1) } ?? false
            if atEnd.subscription(current.originalTransactionId)?.willAutoRenew == true || renewed {
                tallies[enrolment.variant, default: RetentionTally()].saved += 1
            }
        }
        return tallies
    }

    /// What a variant's exposed customers did, added up: the counts, the money per window, and
    /// each customer's revenue within 30 days (for the statistics).
    package struct VariantTally {
        package var exposed = 0
        package var trialsStarted = 0
        package var trialConversions = 0
        package var paying = 0
        package var refunded = 0
        package var revenue: [Int: Decimal] = [:]
        package var proceeds: [Int: Decimal] = [:]
        /// Each customer's revenue within 30 days, as distinct values and how many customers had
        /// each.
        package var revenueCounts: [Double: Int] = [:]

        /// Adds `customers` exposed customers who each had `outcome`.
        package mutating func add(_ outcome: ExperimentOutcome, customers: Int = 1) {
            exposed += customers
            trialsStarted += outcome.trialStarted ? customers : 0
            trialConversions += outcome.converted ? customers : 0
            paying += outcome.paying ? customers : 0
            refunded += outcome.refunded ? customers : 0
            addMoney(outcome, customers: customers)
        }

        package mutating func addMoney(_ outcome: ExperimentOutcome, customers: Int) {
            for days in ExperimentOutcome.windows {
                revenue[days, default: 0] += (outcome.revenue[days] ?? 0) * Decimal(customers)
                proceeds[days, default: 0] += (outcome.proceeds[days] ?? 0) * Decimal(customers)
            }
            revenueCounts[NSDecimalNumber(decimal: outcome.revenue[30] ?? 0).doubleValue, default: 0] += customers
        }
    }

    /// The variants' tallies from the records the store keeps with the figures: each group of
    /// equal windows converted once, the records that count a sale dated at or after now read
    /// from their customers' chains, and every exposed customer without a record a customer who
    /// did nothing.
    private func maintainedTallies(
        app: AppRuntime, experimentId: String, environment: String, analytics: SubscriptionAnalytics, now: Date
    ) async throws -> [String: VariantTally] {
        let sums = try await store.experimentOutcomeSums(appId: app.id, environment: environment, experimentId: experimentId, now: now)
        var tallies: [String: VariantTally] = [:]
        var recorded: [String: Int] = [:]
        // Variants share most of their distinct money: each converted once.
        var outcomes: [String: ExperimentOutcome] = [:]
        for group in sums.groups {
            let outcome: ExperimentOutcome
            if let known = outcomes[group.moneyText] {
                outcome = known
            } else {
                guard let windows = ExperimentRecord.windows(fromMoneyText: group.moneyText) else {
                    throw StoreError(code: .corruptRow, message: "an experiment record's money does not decode")
                }
                var record = ExperimentRecord()
                record.windows = windows
                outcome = analytics.experimentOutcome(of: record, days: ExperimentOutcome.windows)
                outcomes[group.moneyText] = outcome
            }
            var tally = tallies[group.variant] ?? VariantTally()
            tally.exposed += group.customers
            tally.trialsStarted += group.trialsStarted
            tally.trialConversions += group.trialConversions
            tally.paying += group.paying
            tally.refunded += group.refunded
            tally.addMoney(outcome, customers: group.customers)
            tallies[group.variant] = tally
            recorded[group.variant, default: 0] += group.customers
        }
        let chains = try await store.chainFigures(appId: app.id, environment: environment, customers: sums.unsettled.map(\.customerId))
        for enrolment in sums.unsettled {
            let outcome = analytics.experimentOutcome(
                of: chains[enrolment.customerId] ?? [], exposure: enrolment.enrolledAt, now: now, days: ExperimentOutcome.windows)
            tallies[enrolment.variant, default: VariantTally()].add(outcome)
            recorded[enrolment.variant, default: 0] += 1
        }
        for (variant, exposed) in sums.exposed {
            tallies[variant, default: VariantTally()].add(ExperimentOutcome.nothing, customers: max(0, exposed - recorded[variant, default: 0]))
        }
        return tallies
    }
}
