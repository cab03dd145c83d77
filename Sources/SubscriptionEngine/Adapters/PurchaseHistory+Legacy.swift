import AppStoreModels
import Foundation

extension PurchaseHistory {
    /// A history from a `verifyReceipt` response: `receipt.in_app`, `latest_receipt_info`,
    /// `pending_renewal_info`, and the iOS 6 style single transaction receipt with its top-level
    /// auto-renew fields. Entries missing their ids are skipped; a response whose `status` is
    /// not 0 carries no facts worth believing and gives an empty history.
    public init(verifyReceipt response: VerifyReceiptResponse) {
        self.init()
        guard response.status == .valid else { return }
        if let receipt = response.receipt { add(receipt: receipt) }
        addLegacy(response.latestReceiptInfo ?? [])
        addLegacy([response.transactionReceipt, response.latestExpiredReceiptInfo].compactMap { $0 })
        add((response.pendingRenewalInfo ?? []).compactMap(RenewalFact.init(legacy:)))
        if response.pendingRenewalInfo == nil,
            let single = response.latestExpiredReceiptInfo ?? response.transactionReceipt,
            let original = single.originalTransactionId ?? single.transactionId,
            response.autoRenewStatus != nil || response.autoRenewProductId != nil
        {
            add(
                RenewalFact(
                    originalTransactionId: original, productId: single.productId,
                    autoRenewProductId: response.autoRenewProductId, willAutoRenew: response.autoRenewStatus))
        }
    }

    /// Adds the `in_app` transactions of a decoded app receipt (from `verifyReceipt` or from
    /// decoding the receipt's ASN.1 directly).
    public mutating func add(receipt: LegacyReceipt) {
        addLegacy(receipt.inApp ?? [])
    }

    /// Adds what a V1 server notification says: the `unified_receipt` (latest transactions and
    /// pending renewal info), the older top-level `latest_receipt_info` /
    /// `latest_expired_receipt_info`, and, when no pending renewal info names the subscription,
    /// the top-level auto-renew status and expiration intent.
    public mutating func add(notificationV1 notification: NotificationV1) {
        addLegacy(notification.unifiedReceipt?.latestReceiptInfo ?? [])
        addLegacy(notification.latestReceiptInfo ?? [])
        addLegacy([notification.latestExpiredReceiptInfo].compactMap { $0 })
        let pending = (notification.unifiedReceipt?.pendingRenewalInfo ?? []) + (notification.pendingRenewalInfo ?? [])
        add(pending.compactMap(RenewalFact.init(legacy:)))
        if let original = notification.originalTransactionId,
            !pending.contains(where: { $0.originalTransactionId == original }),
            notification.autoRenewStatus != nil || notification.expirationIntent != nil
        {
            add(
                RenewalFact(
                    originalTransactionId: original,
                    autoRenewProductId: notification.autoRenewProductId,
                    willAutoRenew: notification.autoRenewStatus,
                    expirationReason: notification.expirationIntent.map { ExpirationReason(appleIntent: Int($0.rawValue)) }
                ))
        }
    }

    private mutating func addLegacy(_ purchases: [LegacyInAppPurchase]) {
        add(purchases.compactMap(PurchaseFact.init(legacy:)))
    }
}
