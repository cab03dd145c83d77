import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Crypto
import Foundation

extension SimulatorSigner {
    /// A legacy app receipt (PKCS#7, Apple's attribute set) of an account as the device would
    /// hold it at `instant`: every in-app purchase of the account made by then, signed by the
    /// receipt authority.
    ///
    /// The receipt's download id (attribute 15) is the account's app transaction id, so the
    /// simulator's `verifyReceipt` finds the account even when the receipt holds no purchase.
    /// Opaque value and device hash are derived from the account and instant (deterministic).
    public func signReceipt(customerId: String, store: SimulatedAppStore, at instant: Date) throws -> Data {
        let purchases = store.transactions(ofCustomer: customerId)
            .filter { ($0.purchaseDate ?? .distantFuture) <= instant }
            .sorted { ($0.purchaseDate ?? .distantPast, $0.transactionId ?? "") < ($1.purchaseDate ?? .distantPast, $1.transactionId ?? "") }
        let appTransactionId = store.appTransactionId(ofCustomer: customerId)
        let seed = Data("\(store.bundleId)|\(customerId)|\(instant.timeIntervalSince1970)".utf8)
        let digest = Data(SHA256.hash(data: seed))
        let sandbox = store.environment == .sandbox
        let receipt = AppReceipt(
            receiptType: sandbox ? .productionSandbox : .production,
            appItemId: sandbox ? 0 : store.appAppleId,
            bundleId: store.bundleId,
            bundleIdData: try ReceiptPayloadEncoder.bundleIdData(store.bundleId),
            applicationVersion: "1",
            opaqueValue: digest.prefix(16),
            sha1Hash: Data(Insecure.SHA1.hash(data: digest)),
            receiptCreationDate: instant,
            downloadId: Int64(appTransactionId),
            versionExternalIdentifier: 0,
            originalPurchaseDate: purchases.compactMap { $0.originalPurchaseDate ?? $0.purchaseDate }.min() ?? instant,
            originalApplicationVersion: "1",
            inAppPurchases: purchases.map { $0.receiptInAppPurchase(at: instant) })
        return try receiptAuthority.sign(receipt)
    }
}
