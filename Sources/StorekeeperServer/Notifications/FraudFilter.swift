import AppStoreModels
import AppStoreVerification
import Foundation
import SubscriptionEngine

/// Checks applied to data before it is believed about this app: it names this app's bundle,
/// an environment the app accepts, and (when the catalog lists products) a product the app
/// sells. Each refusal is a reason, never an exception.
///
/// Receipts first go through the library's ``ReceiptPreFilter`` (bundle and products, read
/// without any signature check, so junk costs microseconds); replay detection (a purchase
/// already linked to another customer) stays with the callers, which know the customer.
struct FraudFilter: Sendable {
    let app: AppConfiguration
    let catalog: Catalog

    /// The reason to refuse, or `nil` to accept.
    func check(bundleId: String?, environment: AppStoreEnvironment?, productIds: [String]) -> String? {
        if let bundleId, bundleId != app.bundleId {
            return "bundle_mismatch: the data names another app's bundle id"
        }
        if let environment, !app.environments.contains(environment) {
            return "environment_not_accepted: the app does not accept \(environment.rawValue) data"
        }
        if !catalog.products.isEmpty {
            for productId in productIds where catalog.product(productId) == nil {
                return "unknown_product: \(productId) is not in the app's catalog"
            }
        }
        return nil
    }

    /// The library pre-filter for this app's receipts.
    var receiptPreFilter: ReceiptPreFilter {
        ReceiptPreFilter(
            bundleIds: [app.bundleId], productIds: catalog.products.isEmpty ? nil : Set(catalog.products.map(\.productId)))
    }

    /// Why a receipt (base64 or binary) is turned away before verification, or `nil` to go on.
    func checkReceipt(_ receipt: String) -> ReceiptRefusal? {
        guard case .failure(let rejection) = receiptPreFilter.evaluate(Data(receipt.utf8)) else { return nil }
        switch rejection.reason {
        case .wrongBundleId:
            return ReceiptRefusal(isFraud: true, reason: "bundle_mismatch: the receipt names another app's bundle id")
        case .unknownProduct:
            return ReceiptRefusal(isFraud: true, reason: "unknown_product: \(rejection.detail)")
        default:
            return ReceiptRefusal(isFraud: false, reason: "\(rejection.reason): \(rejection.detail)")
        }
    }

    /// A receipt turned away by the pre-filter: a plausible receipt that is not for this app
    /// (`isFraud`), or data that is no receipt at all.
    struct ReceiptRefusal: Sendable, Hashable {
        var isFraud: Bool
        var reason: String
    }
}
