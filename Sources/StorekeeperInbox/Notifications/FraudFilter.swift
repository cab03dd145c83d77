import AppStoreModels
import AppStoreVerification
import Foundation
import StorekeeperApps
import SubscriptionEngine

/// Checks applied to data before it is believed about this app: it names this app's bundle,
/// an environment the app accepts, and (when the catalog lists products) a product the app
/// sells. Each refusal is a typed ``Refusal``, never an exception.
///
/// Receipts first go through the library's ``ReceiptPreFilter`` (bundle and products, read
/// without any signature check, so junk costs microseconds); replay detection (a purchase
/// already linked to another customer) stays with the callers, which know the customer.
package struct FraudFilter: Sendable {
    package let app: AppConfiguration
    package let catalog: Catalog

    package init(app: AppConfiguration, catalog: Catalog) {
        self.app = app
        self.catalog = catalog
    }

    /// Why data is not believed for this app. Its ``description`` is the text inbox rows, logs
    /// and API errors carry: a code, a colon, a sentence.
    package enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// Signed data (a transaction, a notification) or a receipt names another bundle id.
        case bundleMismatch(receipt: Bool)
        /// Data of an environment the app does not accept.
        case environmentNotAccepted(AppStoreEnvironment)
        /// A product the app's (non-empty) catalog does not list.
        case unknownProduct(String)
        /// A receipt naming products the catalog does not list, as the receipt pre-filter
        /// describes them.
        case unlistedReceiptProducts(String)
        /// Data that is no receipt at all, with the pre-filter's reason and detail.
        case notAReceipt(reason: String, detail: String)

        package var description: String {
            switch self {
            case .bundleMismatch(let receipt): "bundle_mismatch: the \(receipt ? "receipt" : "data") names another app's bundle id"
            case .environmentNotAccepted(let environment): "environment_not_accepted: the app does not accept \(environment.rawValue) data"
            case .unknownProduct(let productId): "unknown_product: \(productId) is not in the app's catalog"
            case .unlistedReceiptProducts(let detail): "unknown_product: \(detail)"
            case .notAReceipt(let reason, let detail): "\(reason): \(detail)"
            }
        }
    }

    /// The reason to refuse, or `nil` to accept.
    package func check(bundleId: String?, environment: AppStoreEnvironment?, productIds: [String]) -> Refusal? {
        if let bundleId, bundleId != app.bundleId { return .bundleMismatch(receipt: false) }
        if let environment, !app.environments.contains(environment) { return .environmentNotAccepted(environment) }
        if !catalog.products.isEmpty {
            for productId in productIds where catalog.product(productId) == nil {
                return .unknownProduct(productId)
            }
        }
        return nil
    }

    /// The library pre-filter for this app's receipts.
    package var receiptPreFilter: ReceiptPreFilter {
        ReceiptPreFilter(
            bundleIds: [app.bundleId], productIds: catalog.products.isEmpty ? nil : Set(catalog.products.map(\.productId)))
    }

    /// Why a receipt (base64 or binary) is turned away before verification, or `nil` to go on.
    package func checkReceipt(_ receipt: String) -> ReceiptRefusal? {
        guard case .failure(let rejection) = receiptPreFilter.evaluate(Data(receipt.utf8)) else { return nil }
        switch rejection.reason {
        case .wrongBundleId: return ReceiptRefusal(refusal: .bundleMismatch(receipt: true))
        case .unknownProduct: return ReceiptRefusal(refusal: .unlistedReceiptProducts(rejection.detail))
        default: return ReceiptRefusal(refusal: .notAReceipt(reason: "\(rejection.reason)", detail: rejection.detail))
        }
    }

    /// A receipt turned away by the pre-filter: a plausible receipt that is not for this app
    /// (`isFraud`), or data that is no receipt at all.
    package struct ReceiptRefusal: Sendable, Hashable {
        package var refusal: Refusal
        package var isFraud: Bool {
            if case .notAReceipt = refusal { return false }
            return true
        }
        package var reason: String { refusal.description }
    }
}
