import Foundation

/// One auto-renewable subscription chain (one original transaction id) at an instant.
public struct SubscriptionState: Sendable, Hashable, Codable {
    /// The chain's id.
    public var originalTransactionId: String
    /// The transaction of the current period (the one covering the instant, else the latest).
    public var transactionId: String
    /// The product of that period.
    public var productId: String
    /// The subscription group, from the transaction or the catalog.
    public var subscriptionGroupIdentifier: String?
    /// Apple's status at the instant.
    public var status: SubscriptionStatus
    /// When the current period started.
    public var purchaseDate: Date
    /// When the current period ends (or ended), as Apple dated it.
    public var expiresDate: Date?
    /// The end of the billing grace period, while one is known.
    public var gracePeriodExpiresDate: Date?
    /// When the chain's first period was bought.
    public var originalPurchaseDate: Date?
    /// Whether auto-renew is on, when known.
    public var willAutoRenew: Bool?
    /// The product the next renewal will be, when it differs from ``productId``
    /// (a pending downgrade or crossgrade).
    public var nextProductId: String?
    /// Why the subscription expired (set for `expired` and `billingRetry`).
    public var expirationReason: ExpirationReason?
    /// The offer in effect for the current period.
    public var offer: Offer?
    /// Bought by the customer or shared by a family member.
    public var ownership: Ownership
    /// The revocation of the current period, when Apple took it back.
    public var revocation: Revocation?
    /// The customer's answer to a pending price increase.
    public var priceIncreaseConsent: PriceIncreaseConsent?
    /// Win-back offers Apple says the customer may redeem, when Apple said.
    public var eligibleWinBackOfferIds: [String]?
    /// The end of the access the data proves: the current period's end (earlier when
    /// revoked or upgraded away), or the grace period's end while in grace.
    public var accessEndsDate: Date?
    /// `MONTHLY` when the current period is a monthly payment of a 12-month commitment.
    public var billingPlanType: String?
    /// The commitment of the current period: its payment number of the total, price and end.
    public var commitment: Commitment?
    /// What renews once the commitment ends (while in one).
    public var commitmentRenewal: CommitmentRenewal?

    /// Whether a monthly payment of the commitment is still owed after the current period: the
    /// chain renews whatever the customer's auto-renew choice, which applies at the
    /// commitment's end.
    public var isCommitted: Bool { commitment?.owesMorePeriods ?? false }

    public init(
        originalTransactionId: String,
        transactionId: String,
        productId: String,
        subscriptionGroupIdentifier: String?,
        status: SubscriptionStatus,
        purchaseDate: Date,
        expiresDate: Date?,
        gracePeriodExpiresDate: Date?,
        originalPurchaseDate: Date?,
        willAutoRenew: Bool?,
        nextProductId: String?,
        expirationReason: ExpirationReason?,
        offer: Offer?,
        ownership: Ownership,
        revocation: Revocation?,
        priceIncreaseConsent: PriceIncreaseConsent?,
        eligibleWinBackOfferIds: [String]?,
        accessEndsDate: Date?
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.status = status
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.originalPurchaseDate = originalPurchaseDate
        self.willAutoRenew = willAutoRenew
        self.nextProductId = nextProductId
        self.expirationReason = expirationReason
        self.offer = offer
        self.ownership = ownership
        self.revocation = revocation
        self.priceIncreaseConsent = priceIncreaseConsent
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.accessEndsDate = accessEndsDate
    }

    /// True when the status gives access.
    public var hasAccess: Bool { status.grantsAccess }
}
