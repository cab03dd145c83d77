import AppStoreModels
import Foundation

extension PurchaseHistory {
    /// A history from decoded StoreKit 2 transactions and renewal infos (from the device, the
    /// App Store Server API's transaction history and subscription statuses, or notifications).
    /// Payloads missing their ids are skipped.
    public init(transactions: [JWSTransactionDecodedPayload], renewalInfos: [JWSRenewalInfoDecodedPayload] = []) {
        self.init(
            purchases: transactions.compactMap(PurchaseFact.init(transaction:)),
            renewals: renewalInfos.compactMap(RenewalFact.init(renewalInfo:))
        )
    }

    /// Adds what a verified V2 notification says, given its signed transaction and renewal info
    /// already verified and decoded (the engine does no verification).
    ///
    /// The transaction and renewal info carry the facts. When the renewal info is absent, the
    /// notification's type implies a weaker, unsigned renewal fact (auto-renew turned off,
    /// billing retry, an expiration reason) that any signed renewal info overrides.
    public mutating func add(
        notification: ResponseBodyV2DecodedPayload,
        transaction: JWSTransactionDecodedPayload?,
        renewalInfo: JWSRenewalInfoDecodedPayload?
    ) {
        if let transaction, let fact = PurchaseFact(transaction: transaction) { add(fact) }
        if let renewalInfo, let fact = RenewalFact(renewalInfo: renewalInfo) {
            add(fact)
            return
        }
        guard let original = transaction?.originalTransactionId, let type = notification.notificationType else { return }
        var implied = RenewalFact(originalTransactionId: original)
        switch (type, notification.subtype) {
        case (.didChangeRenewalStatus, .autoRenewDisabled?): implied.willAutoRenew = false
        case (.didChangeRenewalStatus, .autoRenewEnabled?): implied.willAutoRenew = true
        case (.didFailToRenew, _): implied.isInBillingRetry = true
        case (.expired, .voluntary?):
            implied.expirationReason = .voluntary
            implied.willAutoRenew = false
        case (.expired, .billingRetry?):
            implied.expirationReason = .billingError
            implied.isInBillingRetry = false
        case (.expired, .priceIncrease?): implied.expirationReason = .priceIncrease
        case (.expired, .productNotForSale?): implied.expirationReason = .productUnavailable
        case (.gracePeriodExpired, _): implied.isInBillingRetry = true
        case (.priceIncrease, .pending?): implied.priceIncreaseConsent = .pending
        case (.priceIncrease, .accepted?): implied.priceIncreaseConsent = .accepted
        default: return
        }
        guard implied != RenewalFact(originalTransactionId: original) else { return }
        add(implied)
    }
}
