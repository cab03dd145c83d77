import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

extension StorekeeperAPI {
    /// The snapshot metrics as the API answers them: money as numbers with two decimals in the
    /// reporting currency.
    struct SnapshotResponse: ResponseEncodable {
        var at: Date
        var environment: String
        var currency: String
        var activeSubscriptions: Int
        var activeTrials: Int
        var gracePeriod: Int
        var billingRetry: Int
        var familyShared: Int
        var mrr: Decimal
        var unconverted: [String: Decimal]
        var unpriced: Int

        init(_ snapshot: Snapshot, environment: String) {
            at = snapshot.at
            self.environment = environment
            currency = snapshot.currency
            activeSubscriptions = snapshot.activeSubscriptions
            activeTrials = snapshot.activeTrials
            gracePeriod = snapshot.gracePeriod
            billingRetry = snapshot.billingRetry
            familyShared = snapshot.familyShared
            mrr = snapshot.mrr
            unconverted = snapshot.unconverted
            unpriced = snapshot.unpriced
        }
    }

    /// `GET /v1/apps/{appId}/metrics?at=ISO8601[&environment=Sandbox]` (app or admin key): the
    /// snapshot metrics at `at` (now by default), from every fact known now, production only
    /// unless the sandbox is asked for.
    func metrics(_ request: Request, _ context: APIRequestContext) async throws -> SnapshotResponse {
        let app = try context.caller().app
        let query = request.uri.queryParameters
        var at = clock()
        if let text = query.get("at") {
            guard let date = Timestamp.date(from: text) else { throw APIError.badRequest("at must be an ISO 8601 instant") }
            at = date
        }
        let environment = query.get("environment") ?? "Production"
        guard ["Production", "Sandbox"].contains(environment) else { throw APIError.badRequest("environment must be Production or Sandbox") }
        let entries = try await store.ledger(appId: app.id)
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.configuration.analytics, environment: environment)
        return SnapshotResponse(analytics.snapshot(of: PurchaseHistory(ledger: entries), at: at), environment: environment)
    }
}
