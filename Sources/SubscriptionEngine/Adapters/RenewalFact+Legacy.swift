import AppStoreModels
import Foundation

extension RenewalFact {
    /// Normalizes a legacy `pending_renewal_info` entry. `nil` without an original transaction id.
    ///
    /// Legacy renewal data is unsigned and undated, and says nothing about win-back offers.
    public init?(legacy info: LegacyPendingRenewalInfo) {
        guard let originalTransactionId = info.originalTransactionId else { return nil }
        let consent = info.priceIncreaseStatus ?? info.priceConsentStatus
        let nextOffer: Offer?
        if let id = info.promotionalOfferId, !id.isEmpty {
            nextOffer = Offer(kind: .promotional, identifier: id)
        } else if let code = info.offerCodeRefName, !code.isEmpty {
            nextOffer = Offer(kind: .offerCode, identifier: code)
        } else {
            nextOffer = nil
        }
        self.init(
            originalTransactionId: originalTransactionId,
            productId: info.productId,
            autoRenewProductId: info.autoRenewProductId,
            willAutoRenew: info.autoRenewStatus,
            expirationReason: info.expirationIntent.map { ExpirationReason(appleIntent: Int($0.rawValue)) },
            isInBillingRetry: info.isInBillingRetryPeriod,
            gracePeriodExpiresDate: info.gracePeriodExpiresDate,
            priceIncreaseConsent: consent.map { $0 ? .accepted : .pending },
            nextOffer: nextOffer
        )
    }
}
