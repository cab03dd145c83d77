import Foundation

/// What Apple says will happen at the next renewal of one subscription chain.
///
/// Built from a legacy `pending_renewal_info` entry, a StoreKit 2 renewal info, or what a
/// V1/V2 notification implies. One per ``originalTransactionId``; the latest signed wins.
public struct RenewalFact: Sendable, Hashable, Codable {
    /// The chain this describes.
    public var originalTransactionId: String
    /// The product of the current period, when given.
    public var productId: String?
    /// The product the chain renews into (differs from ``productId`` for a pending downgrade
    /// or crossgrade).
    public var autoRenewProductId: String?
    /// Whether auto-renew is on.
    public var willAutoRenew: Bool?
    /// Why the subscription expired or will expire, once Apple knows.
    public var expirationReason: ExpirationReason?
    /// Whether Apple is retrying a failed charge.
    public var isInBillingRetry: Bool?
    /// The end of the billing grace period, when the app has one and billing failed.
    public var gracePeriodExpiresDate: Date?
    /// The customer's answer to a pending price increase.
    public var priceIncreaseConsent: PriceIncreaseConsent?
    /// The offer that will apply at the next renewal.
    public var nextOffer: Offer?
    /// Win-back offers Apple says the customer may redeem, best first; `nil` when Apple did
    /// not say (legacy sources, older renewal infos), empty when Apple says none.
    public var eligibleWinBackOfferIds: [String]?
    /// The price of the next renewal, when given.
    public var renewalPrice: Money?
    /// When Apple signed this; the latest signed renewal fact wins.
    public var signedDate: Date?
    /// How the next period is billed (`renewalBillingPlanType`): `MONTHLY` within or into a
    /// 12-month commitment, `BILLED_UPFRONT` otherwise.
    public var billingPlanType: String?
    /// What renews after the current commitment, while the chain is in one.
    public var commitmentRenewal: CommitmentRenewal?

    public init(
        originalTransactionId: String,
        productId: String? = nil,
        autoRenewProductId: String? = nil,
        willAutoRenew: Bool? = nil,
        expirationReason: ExpirationReason? = nil,
        isInBillingRetry: Bool? = nil,
        gracePeriodExpiresDate: Date? = nil,
        priceIncreaseConsent: PriceIncreaseConsent? = nil,
        nextOffer: Offer? = nil,
        eligibleWinBackOfferIds: [String]? = nil,
        renewalPrice: Money? = nil,
        signedDate: Date? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.willAutoRenew = willAutoRenew
        self.expirationReason = expirationReason
        self.isInBillingRetry = isInBillingRetry
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.priceIncreaseConsent = priceIncreaseConsent
        self.nextOffer = nextOffer
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.renewalPrice = renewalPrice
        self.signedDate = signedDate
    }

    /// Combines two renewal facts about the same chain: the later signed one wins as a whole
    /// (renewal info is a snapshot, so its absent fields mean "no longer"); fields only an
    /// equally old fact has are kept. Independent of argument order.
    public func merged(with other: RenewalFact) -> RenewalFact {
        let da = signedDate ?? .distantPast
        let db = other.signedDate ?? .distantPast
        if da != db { return da > db ? self : other }
        let (base, extra) = String(describing: self) <= String(describing: other) ? (self, other) : (other, self)
        var result = base
        result.productId = base.productId ?? extra.productId
        result.autoRenewProductId = base.autoRenewProductId ?? extra.autoRenewProductId
        result.willAutoRenew = base.willAutoRenew ?? extra.willAutoRenew
        result.expirationReason = base.expirationReason ?? extra.expirationReason
        result.isInBillingRetry = base.isInBillingRetry ?? extra.isInBillingRetry
        result.gracePeriodExpiresDate = base.gracePeriodExpiresDate ?? extra.gracePeriodExpiresDate
        result.priceIncreaseConsent = base.priceIncreaseConsent ?? extra.priceIncreaseConsent
        result.nextOffer = base.nextOffer ?? extra.nextOffer
        result.eligibleWinBackOfferIds = base.eligibleWinBackOfferIds ?? extra.eligibleWinBackOfferIds
        result.renewalPrice = base.renewalPrice ?? extra.renewalPrice
        result.billingPlanType = base.billingPlanType ?? extra.billingPlanType
        result.commitmentRenewal = base.commitmentRenewal ?? extra.commitmentRenewal
        return result
    }
}
