import AppStoreModels
import Foundation

/// A cheap fraud filter for receipts, run before verification or any call to Apple.
///
/// It reads the receipt's structure without checking signatures (so it costs microseconds,
/// not an RSA operation or a network round trip) and turns away what can never be a valid
/// purchase for this app: data that is not a receipt (JSON, text, base64 of a product id as
/// cracker tools send), receipts of other apps, and purchases of unknown products. A receipt
/// that passes still has to be verified with ``ReceiptVerifier`` (or Apple's endpoint).
/// Both app receipts and iOS 6 transaction receipts are understood.
public struct ReceiptPreFilter: Sendable {
    /// The app's bundle identifiers (several when one backend serves several apps).
    public var bundleIds: Set<String>
    /// The products the app sells; `nil` to skip the product check.
    public var productIds: Set<String>?

    public init(bundleIds: Set<String>, productIds: Set<String>? = nil) {
        self.bundleIds = bundleIds
        self.productIds = productIds
    }

    /// What the filter saw in a receipt it let through.
    public struct Summary: Hashable, Sendable {
        /// Whether it is an iOS 6 transaction receipt rather than an app receipt.
        public var isTransactionReceipt: Bool
        public var bundleId: String
        /// The products purchased, in receipt order.
        public var productIds: [String]
    }

    /// Checks `receipt` (binary or base64): a ``Summary`` when plausible, a ``ReceiptRejection`` otherwise.
    public func evaluate(_ receipt: Data) -> Result<Summary, ReceiptRejection> {
        switch ReceiptInput.classify(receipt) {
        case .empty:
            return .failure(ReceiptRejection(reason: .empty, detail: "no receipt data"))
        case .json:
            return .failure(ReceiptRejection(reason: .notAReceipt, detail: "JSON, not a receipt"))
        case .tooLarge:
            return .failure(ReceiptRejection(reason: .malformed, detail: "larger than any real receipt"))
        case .unrecognized(let what):
            return .failure(ReceiptRejection(reason: .notAReceipt, detail: what))
        case .transactionReceipt(let text):
            guard let parsed = TransactionReceiptText(text), let bundleId = parsed.purchaseInfo["bid"] else {
                return .failure(ReceiptRejection(reason: .malformed, detail: "iOS 6 receipt without readable purchase-info"))
            }
            let products = parsed.purchaseInfo["product-id"].map { [$0] } ?? []
            return check(Summary(isTransactionReceipt: true, bundleId: bundleId, productIds: products))
        case .pkcs7(let bytes):
            guard let container = try? ReceiptSignedData(berEncoded: bytes),
                let payload = try? AppReceipt(payload: container.content)
            else {
                return .failure(ReceiptRejection(reason: .malformed, detail: "unreadable PKCS#7 receipt"))
            }
            let products = payload.inAppPurchases.compactMap(\.productId)
            return check(Summary(isTransactionReceipt: false, bundleId: payload.bundleId, productIds: products))
        }
    }

    private func check(_ summary: Summary) -> Result<Summary, ReceiptRejection> {
        guard bundleIds.contains(summary.bundleId) else {
            return .failure(ReceiptRejection(reason: .wrongBundleId, detail: "receipt of \(summary.bundleId)"))
        }
        if let productIds, let unknown = summary.productIds.first(where: { !productIds.contains($0) }) {
            return .failure(ReceiptRejection(reason: .unknownProduct, detail: "unknown product \(unknown)"))
        }
        return .success(summary)
    }
}
