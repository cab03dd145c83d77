import AppStoreModels
import Foundation

extension RenewalFact {
    /// Normalizes a decoded StoreKit 2 renewal info. `nil` without an original transaction id.
    public init?(renewalInfo: JWSRenewalInfoDecodedPayload) {
        guard let originalTransactionId = renewalInfo.originalTransactionId else { return nil }
        var renewalPrice: Money?
        if let milliunits = renewalInfo.renewalPrice, let currency = renewalInfo.currency {
            renewalPrice = Money(milliunits: milliunits, currency: currency)
        }
        self.init(
            originalTransactionId: originalTransactionId,
            productId: renewalInfo.productId,
            autoRenewProductId: renewalInfo.autoRenewProductId,
            willAutoRenew: renewalInfo.autoRenewStatus.flatMap { status in
                status == .on ? true : status == .off ? false : nil
            },
            expirationReason: renewalInfo.expirationIntent.map { ExpirationReason(appleIntent: Int($0.rawValue)) },
            isInBillingRetry: renewalInfo.isInBillingRetryPeriod,
            gracePeriodExpiresDate: renewalInfo.gracePeriodExpiresDate,
            priceIncreaseConsent: renewalInfo.priceIncreaseStatus.flatMap { status in
                status == .customerHasNotResponded
                    ? .pending
                    : status == .customerConsentedOrWasNotifiedWithoutNeedingConsent ? .accepted : nil
            },
            nextOffer: Offer(
                appleType: renewalInfo.offerType, discount: renewalInfo.offerDiscountType,
                identifier: renewalInfo.offerIdentifier, price: renewalInfo.renewalPrice
            ),
            eligibleWinBackOfferIds: renewalInfo.eligibleWinBackOfferIds,
            renewalPrice: renewalPrice,
            signedDate: renewalInfo.signedDate
        )
        billingPlanType = renewalInfo.renewalBillingPlanType?.rawValue
        if let info = renewalInfo.commitmentInfo {
            commitmentRenewal = CommitmentRenewal(
                willAutoRenew: info.commitmentAutoRenewStatus.flatMap { $0 == .on ? true : $0 == .off ? false : nil },
                autoRenewProductId: info.commitmentAutoRenewProductId, billingPlanType: info.commitmentRenewalBillingPlanType?.rawValue,
                renewalDate: info.commitmentRenewalDate,
                price: info.commitmentRenewalPrice.flatMap { milliunits in renewalInfo.currency.map { Money(milliunits: milliunits, currency: $0) } })
        }
    }
}
