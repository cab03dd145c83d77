import Foundation

/// The renewal information of an auto-renewable subscription as the App Store signs it:
/// the payload of `signedRenewalInfo`.
///
/// Every field is optional; unknown values of open value sets are kept.
public struct JWSRenewalInfoDecodedPayload: Codable, Hashable, Sendable {
    /// Why the subscription expired.
    public var expirationIntent: ExpirationIntent?

    /// The transaction identifier of the original purchase; stable across renewals, restores and upgrades
    /// within a subscription group.
    public var originalTransactionId: String?

    /// The product the subscription renews to at its next renewal.
    public var autoRenewProductId: String?

    /// The product identifier configured in App Store Connect.
    public var productId: String?

    /// Whether the subscription renews automatically.
    public var autoRenewStatus: AutoRenewStatus?

    /// Whether the App Store is retrying a failed renewal.
    public var isInBillingRetryPeriod: Bool?

    /// The customer's response to a price increase, if one is pending.
    public var priceIncreaseStatus: PriceIncreaseStatus?

    /// When the billing grace period ends.
    @AppStoreDate public var gracePeriodExpiresDate: Date?

    /// The kind of offer that applies to the next renewal.
    public var offerType: OfferType?

    /// The identifier of the offer that applies to the next renewal.
    public var offerIdentifier: String?

    /// When the App Store signed this data.
    @AppStoreDate public var signedDate: Date?

    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// The start of the most recent run of contiguous subscription periods (gaps under 60 days are ignored).
    @AppStoreDate public var recentSubscriptionStartDate: Date?

    /// When the subscription will renew (or would have, had it not expired).
    @AppStoreDate public var renewalDate: Date?

    /// The ISO 4217 currency code of the price.
    public var currency: String?

    /// The price of the next renewal, in milliunits of `currency`.
    public var renewalPrice: Int64?

    /// How the offer applying to the next renewal charges the customer.
    public var offerDiscountType: OfferDiscountType?

    /// The win-back offers the customer is eligible for, best first.
    public var eligibleWinBackOfferIds: [String]?

    /// The UUID the app associated with the customer's account at purchase time.
    ///
    /// Kept as the string Apple sends, so a malformed value never makes the payload undecodable;
    /// use `UUID(uuidString:)` to interpret it.
    public var appAccountToken: String?

    /// The unique identifier of the app download transaction (the AppTransaction).
    public var appTransactionId: String?

    /// The duration of the offer applying to the next renewal, as an ISO 8601 duration.
    public var offerPeriod: String?

    /// Advanced Commerce API details; present only for Advanced Commerce purchases.
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?

    /// Details of a subscription with a billing commitment.
    public var commitmentInfo: RenewalCommitmentInfo?

    /// How the subscription will be billed from its next renewal.
    public var renewalBillingPlanType: RenewalBillingPlanType?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        expirationIntent: ExpirationIntent? = nil,
        originalTransactionId: String? = nil,
        autoRenewProductId: String? = nil,
        productId: String? = nil,
        autoRenewStatus: AutoRenewStatus? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        priceIncreaseStatus: PriceIncreaseStatus? = nil,
        gracePeriodExpiresDate: Date? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        signedDate: Date? = nil,
        environment: AppStoreEnvironment? = nil,
        recentSubscriptionStartDate: Date? = nil,
        renewalDate: Date? = nil,
        currency: String? = nil,
        renewalPrice: Int64? = nil,
        offerDiscountType: OfferDiscountType? = nil,
        eligibleWinBackOfferIds: [String]? = nil,
        appAccountToken: String? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil,
        advancedCommerceInfo: AdvancedCommerceRenewalInfo? = nil,
        commitmentInfo: RenewalCommitmentInfo? = nil,
        renewalBillingPlanType: RenewalBillingPlanType? = nil
    ) {
        self.expirationIntent = expirationIntent
        self.originalTransactionId = originalTransactionId
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.priceIncreaseStatus = priceIncreaseStatus
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.environment = environment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.offerDiscountType = offerDiscountType
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.advancedCommerceInfo = advancedCommerceInfo
        self.commitmentInfo = commitmentInfo
        self.renewalBillingPlanType = renewalBillingPlanType
    }
}
