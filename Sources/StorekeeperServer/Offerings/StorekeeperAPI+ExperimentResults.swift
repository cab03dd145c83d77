import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

extension StorekeeperAPI {
    struct ExperimentResultsResponse: ResponseEncodable {
        struct Variant: Encodable {
            var id: String
            var offering: String
            var exposed: Int
            var trialsStarted: Int
            var trialConversions: Int
            var payingCustomers: Int
            var refunds: Int
            /// Revenue and proceeds per exposed customer realized within 7, 14 and 30 days of
            /// exposure, in the reporting currency.
            var revenuePerExposed: [String: Decimal]
            var proceedsPerExposed: [String: Decimal]
        }
        var experiment: String
        var status: String
        var winner: String?
        var environment: String
        var currency: String
        var asOf: Date
        var variants: [Variant]
        /// Paying customers per exposed customer: Beta-Binomial posteriors.
        var conversion: [ExperimentStatistics.Comparison]
        /// 30-day revenue per exposed customer: the Bayesian bootstrap.
        var revenuePerCustomer: [ExperimentStatistics.Comparison]
    }

    /// `GET /v1/apps/{appId}/experiments/{id}/results[?environment=Sandbox]` (admin): per variant,
    /// what its exposed customers did after exposure, and the statistics (README, "Experiments").
    func experimentResults(_ request: Request, _ context: APIRequestContext) async throws -> ExperimentResultsResponse {
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
    func experimentResults(app: AppRuntime, id: String, environment: String?) async throws -> ExperimentResultsResponse? {
        let (_, document) = try await offerings(app: app)
        guard let experiment = document.experiment(id) else { return nil }
        let environment = environment ?? (app.accepts(.production) ? "Production" : "Sandbox")
        let now = clock()
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.configuration.analytics, environment: environment)
        let all = try await store.enrolments(appId: app.id, experimentId: id)
        let enrolments = Dictionary(grouping: all, by: \.variant)
        // The exposed customers' chains as their figures hold them, read in batches; while the
        // figures are being built, from each exposed customer's ledger.
        var chains: [String: [ChainFigures]] = [:]
        switch try await FigureSource(store: store).reading(of: app.configuration, environment: environment) {
        case .built:
            chains = try await store.chainFigures(appId: app.id, environment: environment, customers: all.map(\.customerId))
        case .replay:
            for customer in Set(all.map(\.customerId)) {
                let ledger = try await store.ledger(appId: app.id, customerId: customer)
                chains[customer] = Dictionary(grouping: ledger, by: { $0.fact.originalTransactionId ?? "-" }).values.map {
                    analytics.figures(ofChain: PurchaseHistory(ledger: $0))
                }
            }
        }
        var variants: [ExperimentResultsResponse.Variant] = []
        var conversions: [(id: String, exposed: Int, converted: Int)] = []
        var revenues: [(id: String, values: [Double])] = []
        for variant in experiment.variants {
            var row = ExperimentResultsResponse.Variant(
                id: variant.id, offering: variant.offering, exposed: 0, trialsStarted: 0, trialConversions: 0, payingCustomers: 0, refunds: 0,
                revenuePerExposed: [:], proceedsPerExposed: [:])
            var revenue: [Int: Decimal] = [7: 0, 14: 0, 30: 0]
            var proceed: [Int: Decimal] = [7: 0, 14: 0, 30: 0]
            var values: [Double] = []
            for enrolment in enrolments[variant.id] ?? [] {
                row.exposed += 1
                let outcome = analytics.experimentOutcome(
                    of: chains[enrolment.customerId] ?? [], exposure: enrolment.enrolledAt, now: now, days: [7, 14, 30])
                row.trialsStarted += outcome.trialStarted ? 1 : 0
                row.payingCustomers += outcome.paying ? 1 : 0
                row.trialConversions += outcome.converted ? 1 : 0
                row.refunds += outcome.refunded ? 1 : 0
                for days in [7, 14, 30] {
                    revenue[days, default: 0] += outcome.revenue[days] ?? 0
                    proceed[days, default: 0] += outcome.proceeds[days] ?? 0
                }
                values.append(NSDecimalNumber(decimal: outcome.revenue[30] ?? 0).doubleValue)
            }
            for days in [7, 14, 30] {
                let divisor = Decimal(max(1, row.exposed))
                row.revenuePerExposed["\(days)d"] = CustomerEvents.rounded((revenue[days] ?? 0) / divisor)
                row.proceedsPerExposed["\(days)d"] = CustomerEvents.rounded((proceed[days] ?? 0) / divisor)
            }
            variants.append(row)
            conversions.append((variant.id, row.exposed, row.payingCustomers))
            revenues.append((variant.id, values))
        }
        let seed = UInt64(truncatingIfNeeded: ExperimentAssignment.bucket(experimentId: id, customerId: "statistics"))
        return ExperimentResultsResponse(
            experiment: id, status: experiment.status.rawValue, winner: experiment.winner, environment: environment,
            currency: app.configuration.analytics.reportingCurrency, asOf: now, variants: variants,
            conversion: ExperimentStatistics.conversions(conversions, seed: seed),
            revenuePerCustomer: ExperimentStatistics.amounts(revenues, seed: seed))
    }
}
