import AppStoreModels
import Foundation

/// Writes the Version 1 notification (plain JSON, deprecated but still sent to apps that
/// configured a V1 URL) that Apple POSTs beside a V2 notification about the same event.
///
/// The body carries what Apple's V1 carried: the event's `notification_type`, the app's shared
/// secret as `password`, the subscription's renewal state at top level, and a `unified_receipt`
/// with a freshly signed `latest_receipt` of the account, its in-app purchases newest first
/// (`latest_receipt_info`, in `verifyReceipt`'s string format) and its subscriptions'
/// `pending_renewal_info`. Many V2 events have no V1 counterpart; those give `nil`.
///
/// Everything is derived from the simulated App Store's memory and the instant passed in, so
/// the same run gives the same bytes.
public struct NotificationV1Builder: Sendable {
    /// Signs the account's `latest_receipt`.
    public let signer: SimulatorSigner
    /// The app's shared secret, sent as `password`; Apple leaves it out when none is set.
    public let sharedSecret: String?

    /// Apple lists at most the latest 100 transactions in `latest_receipt_info`.
    public static let latestReceiptInfoLimit = 100

    public init(signer: SimulatorSigner, sharedSecret: String?) {
        self.signer = signer
        self.sharedSecret = sharedSecret
    }

    /// The JSON body Apple would POST to the app's V1 URL for a V2 event, or `nil` when V1 has
    /// no equivalent (see ``notificationType(for:subtype:)``) or the event names no account the
    /// store knows.
    ///
    /// - Parameters:
    ///   - transaction: the event's transaction as the V2 notification carries it (for a refund,
    ///     with its revocation date); it replaces the store's copy in `latest_receipt_info`.
    ///   - subscription: the subscription's truth right after the event; it replaces the
    ///     store's copy in `pending_renewal_info` and gives the top-level renewal fields.
    ///   - instant: when Apple sends it; the receipt and lists hold what happened by then.
    /// - Throws: only when signing the receipt or encoding fails.
    public func body(
        type: NotificationTypeV2, subtype: Subtype?, transaction: JWSTransactionDecodedPayload?,
        subscription: SubscriptionTruth?, store: SimulatedAppStore, at instant: Date
    ) throws -> Data? {
        guard
            let notification = try notification(
                type: type, subtype: subtype, transaction: transaction, subscription: subscription, store: store, at: instant)
        else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(notification)
    }

    /// The V1 notification of ``body(type:subtype:transaction:subscription:store:at:)`` as a
    /// model value, before encoding.
    public func notification(
        type: NotificationTypeV2, subtype: Subtype?, transaction: JWSTransactionDecodedPayload?,
        subscription: SubscriptionTruth?, store: SimulatedAppStore, at instant: Date
    ) throws -> NotificationV1? {
        guard let notificationType = Self.notificationType(for: type, subtype: subtype) else { return nil }
        let chain =
            subscription?.originalTransactionId
            ?? transaction.flatMap { $0.originalTransactionId ?? $0.transactionId }
        let renewal = subscription ?? chain.flatMap { transaction?.type == .autoRenewableSubscription ? store.subscription($0) : nil }
        guard let customerId = subscription?.customerId ?? transaction?.transactionId.flatMap(store.customer(ofTransaction:)) else {
            return nil
        }

        var notification = NotificationV1(
            notificationType: notificationType, password: sharedSecret,
            environment: store.environment == .production ? .production : .sandbox,
            bid: store.bundleId, bvrs: "1", originalTransactionId: chain)
        if let renewal {
            notification.autoRenewProductId = renewal.autoRenewProductId
            notification.autoRenewStatus = renewal.autoRenewStatus
            if type == .didChangeRenewalStatus { notification.autoRenewStatusChangeDate = instant }
            let hasExpired = instant >= renewal.expiresDate || renewal.revocationDate.map { $0 <= instant } == true
            if hasExpired { notification.expirationIntent = renewal.expirationIntent }
        }
        notification.unifiedReceipt = UnifiedReceipt(
            status: .valid,
            environment: store.environment == .production ? .production : .sandbox,
            latestReceipt: try signer.signReceipt(customerId: customerId, store: store, at: instant).base64EncodedString(),
            latestReceiptInfo: Self.latestReceiptInfo(customerId: customerId, replacing: transaction, store: store, at: instant),
            pendingRenewalInfo: Self.pendingRenewalInfo(customerId: customerId, replacing: subscription, store: store, at: instant))
        return notification
    }

    /// The account's in-app purchases made by `instant`, newest first, as `verifyReceipt`
    /// lists them; a revocation after `instant` is not known yet.
    static func latestReceiptInfo(
        customerId: String, replacing transaction: JWSTransactionDecodedPayload?, store: SimulatedAppStore, at instant: Date
    ) -> [LegacyInAppPurchase] {
        var transactions = store.transactions(ofCustomer: customerId)
        if let transaction, let id = transaction.transactionId {
            if let index = transactions.firstIndex(where: { $0.transactionId == id }) {
                transactions[index] = transaction
            } else if (store.customer(ofTransaction: id) ?? customerId) == customerId {
                transactions.append(transaction)
            }
        }
        return
            transactions
            .filter { ($0.purchaseDate ?? .distantFuture) <= instant }
            .sorted { ($0.purchaseDate ?? .distantPast, $0.transactionId ?? "") > ($1.purchaseDate ?? .distantPast, $1.transactionId ?? "") }
            .prefix(latestReceiptInfoLimit)
            .map { transaction in
                var purchase = transaction.legacyInAppPurchase
                if let cancelled = purchase.cancellationDate, cancelled > instant {
                    purchase.cancellationDate = nil
                    purchase.cancellationReason = nil
                }
                return purchase
            }
    }

    /// The renewal state of each of the account's subscriptions at `instant`; `nil` when it has none.
    static func pendingRenewalInfo(
        customerId: String, replacing subscription: SubscriptionTruth?, store: SimulatedAppStore, at instant: Date
    ) -> [LegacyPendingRenewalInfo]? {
        var subscriptions = store.subscriptions(ofCustomer: customerId)
        if let subscription {
            subscriptions.removeAll { $0.originalTransactionId == subscription.originalTransactionId }
            subscriptions.append(subscription)
            subscriptions.sort { $0.originalTransactionId < $1.originalTransactionId }
        }
        let renewals = subscriptions.map { $0.legacyPendingRenewalInfo(at: instant) }
        return renewals.isEmpty ? nil : renewals
    }
}
