import AppStoreModels
import SubscriptionEngine

/// Checks applied to verified data before it is believed about this app: it names this app's
/// bundle, an environment the app accepts, and (when the catalog lists products) a product
/// the app sells. Each refusal is a reason, never an exception.
struct FraudFilter: Sendable {
    let app: AppConfiguration
    let catalog: Catalog

    /// The reason to refuse, or `nil` to accept.
    func check(bundleId: String?, environment: AppStoreEnvironment?, productIds: [String]) -> String? {
        if let bundleId, bundleId != app.bundleId {
            return "bundle_mismatch: the data names another app's bundle id"
        }
        if let environment, !app.environments.contains(environment.rawValue) {
            return "environment_not_accepted: the app does not accept \(environment.rawValue) data"
        }
        if !catalog.products.isEmpty {
            for productId in productIds where catalog.product(productId) == nil {
                return "unknown_product: \(productId) is not in the app's catalog"
            }
        }
        return nil
    }
}
