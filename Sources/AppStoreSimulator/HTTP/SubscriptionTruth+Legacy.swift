import AppStoreModels
import Foundation

extension SubscriptionTruth {
    /// The subscription as a `pending_renewal_info` entry of Apple's `verifyReceipt` at `now`:
    /// the expiration intent only once it has expired, the grace period only while retrying.
    func legacyPendingRenewalInfo(at now: Date) -> LegacyPendingRenewalInfo {
        let hasExpired = now >= expiresDate || revocationDate.map { $0 <= now } == true
        return LegacyPendingRenewalInfo(
            autoRenewProductId: autoRenewProductId,
            productId: productId,
            originalTransactionId: originalTransactionId,
            autoRenewStatus: autoRenewStatus,
            expirationIntent: hasExpired ? expirationIntent : nil,
            isInBillingRetryPeriod: hasExpired ? isInBillingRetryPeriod : nil,
            gracePeriodExpiresDate: isInBillingRetryPeriod ? gracePeriodExpiresDate : nil,
            priceConsentStatus: priceIncreaseStatus.map { $0 == .customerConsentedOrWasNotifiedWithoutNeedingConsent })
    }
}
