import AppStoreModels
import Foundation

/// The simulated App Store's truth about one auto-renewable subscription (one chain of
/// transactions sharing an `originalTransactionId`): what Apple's status endpoint and renewal
/// info would say about it.
public struct SubscriptionTruth: Sendable, Hashable, Codable {
    public var originalTransactionId: String
    /// The simulated Apple account that owns (or, family-shared, sees) the subscription.
    public var customerId: String
    public var subscriptionGroupIdentifier: String
    /// The product of the current (latest) period.
    public var productId: String
    /// The product the next renewal will be for (a pending downgrade or crossgrade differs).
    public var autoRenewProductId: String
    public var autoRenewStatus: Bool
    /// The end of the latest period Apple charged for (or extended).
    public var expiresDate: Date
    /// Apple is retrying a failed renewal.
    public var isInBillingRetryPeriod: Bool
    /// While in billing retry, access lasts until this instant when the app has a grace period.
    public var gracePeriodExpiresDate: Date?
    /// Why the subscription expired (or will), when it does.
    public var expirationIntent: ExpirationIntent?
    /// A price increase awaiting (or given) the customer's consent.
    public var priceIncreaseStatus: PriceIncreaseStatus?
    /// When Apple revoked the latest period (refund or family-sharing removal).
    public var revocationDate: Date?
    public var ownership: InAppOwnershipType
    /// The latest transaction of the chain.
    public var lastTransactionId: String
    public var appAccountToken: String?
    /// Start of the latest run of uninterrupted periods.
    public var recentSubscriptionStartDate: Date
    public var renewalPrice: Int64?
    public var currency: String
    /// For a family-shared copy, the purchaser's chain.
    public var sharedFrom: String?
    /// An offer the customer redeemed for the next renewal (a retention offer from the
    /// cancellation sheet).
    public var pendingOffer: PendingOffer?
    /// The 12-month commitment the chain pays monthly, when it is on that plan.
    public var commitment: CommitmentTruth?

    public init(
        originalTransactionId: String, customerId: String, subscriptionGroupIdentifier: String, productId: String,
        autoRenewStatus: Bool = true, expiresDate: Date, lastTransactionId: String, ownership: InAppOwnershipType = .purchased,
        appAccountToken: String? = nil, recentSubscriptionStartDate: Date, renewalPrice: Int64? = nil, currency: String = "USD",
        sharedFrom: String? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.customerId = customerId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.productId = productId
        self.autoRenewProductId = productId
        self.autoRenewStatus = autoRenewStatus
        self.expiresDate = expiresDate
        self.isInBillingRetryPeriod = false
        self.lastTransactionId = lastTransactionId
        self.ownership = ownership
        self.appAccountToken = appAccountToken
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.sharedFrom = sharedFrom
    }

    /// Apple's status of the subscription at `instant`.
    public func status(at instant: Date) -> Status {
        if let revoked = revocationDate, revoked <= instant { return .revoked }
        if instant < expiresDate { return .active }
        if isInBillingRetryPeriod {
            if let grace = gracePeriodExpiresDate, instant < grace { return .billingGracePeriod }
            return .billingRetry
        }
        return .expired
    }

    /// Whether the next renewal will happen (as a client sees auto-renew).
    public var willAutoRenew: Bool { (revocationDate == nil && commitment?.owesMorePeriods == true) || autoRenewStatus }

    /// The renewal info Apple would sign now.
    public func renewalInfo(environment: AppStoreEnvironment, appTransactionId: String?, signedDate: Date) -> JWSRenewalInfoDecodedPayload {
        var info = JWSRenewalInfoDecodedPayload()
        info.originalTransactionId = originalTransactionId
        info.productId = productId
        info.autoRenewProductId = autoRenewProductId
        info.autoRenewStatus = autoRenewStatus ? .on : .off
        info.isInBillingRetryPeriod = isInBillingRetryPeriod
        info.gracePeriodExpiresDate = isInBillingRetryPeriod ? gracePeriodExpiresDate : nil
        info.expirationIntent = expirationIntent
        info.priceIncreaseStatus = priceIncreaseStatus
        info.environment = environment
        info.signedDate = signedDate
        info.recentSubscriptionStartDate = recentSubscriptionStartDate
        info.renewalDate = expiresDate
        info.renewalPrice = autoRenewStatus ? renewalPrice : nil
        info.currency = currency
        info.appAccountToken = appAccountToken
        info.appTransactionId = appTransactionId
        if let commitment {
            info.renewalBillingPlanType = .monthly
            info.commitmentInfo = RenewalCommitmentInfo(
                commitmentAutoRenewProductId: autoRenewProductId, commitmentAutoRenewStatus: autoRenewStatus ? .on : .off,
                commitmentRenewalBillingPlanType: .monthly, commitmentRenewalDate: commitment.expiresDate,
                commitmentRenewalPrice: commitment.monthlyPrice)
            info.renewalPrice = commitment.monthlyPrice
        }
        if let pendingOffer, autoRenewStatus {
            info.offerType = pendingOffer.type
            info.offerIdentifier = pendingOffer.identifier
            info.offerDiscountType = .payAsYouGo
            info.offerPeriod = "P1M"
        }
        return info
    }
}

/// An offer that applies at the next renewal.
public struct PendingOffer: Sendable, Hashable, Codable {
    public var type: OfferType
    public var identifier: String

    public init(type: OfferType, identifier: String) {
        self.type = type
        self.identifier = identifier
    }
}

/// A chain's 12-month commitment, paid monthly.
public struct CommitmentTruth: Sendable, Hashable, Codable {
    /// The payment of the current period (1-based).
    public var number: Int
    public var total: Int
    /// The commitment's end: the 12th payment's expiry.
    public var expiresDate: Date
    public var monthlyPrice: Int64

    public init(number: Int, total: Int = 12, expiresDate: Date, monthlyPrice: Int64) {
        self.number = number
        self.total = total
        self.expiresDate = expiresDate
        self.monthlyPrice = monthlyPrice
    }

    /// Whether a payment is owed after the current one: the chain renews whatever the customer chose.
    public var owesMorePeriods: Bool { number < total }

    /// The `commitmentInfo` of the current payment.
    func transactionInfo(currency: String?) -> TransactionCommitmentInfo {
        TransactionCommitmentInfo(
            billingPeriodNumber: Int32(number), commitmentExpiresDate: expiresDate, commitmentPrice: monthlyPrice * Int64(total),
            totalBillingPeriods: Int32(total))
    }
}
