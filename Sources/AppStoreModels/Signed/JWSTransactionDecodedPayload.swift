import Foundation

/// A transaction as the App Store signs it: the payload of `signedTransactionInfo` and of
/// every entry in `signedTransactions`.
///
/// Every field is optional, as Apple omits fields that do not apply; unknown values of open
/// value sets are kept.
public struct JWSTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// The transaction identifier of the original purchase; stable across renewals, restores and upgrades
    /// within a subscription group.
    public var originalTransactionId: String?

    /// The unique identifier of this transaction (purchase, restore or renewal).
    public var transactionId: String?

    /// Identifies a subscription purchase event across devices, including renewals.
    public var webOrderLineItemId: String?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The product identifier configured in App Store Connect.
    public var productId: String?

    /// The identifier of the subscription group the subscription belongs to.
    public var subscriptionGroupIdentifier: String?

    /// When the App Store charged the customer (purchase, restore, renewal or resubscription).
    @AppStoreDate public var purchaseDate: Date?

    /// The purchase date of the original transaction.
    @AppStoreDate public var originalPurchaseDate: Date?

    /// When the subscription expires or renews.
    @AppStoreDate public var expiresDate: Date?

    /// The number of consumable products purchased.
    public var quantity: Int32?

    /// The type of in-app purchase.
    public var type: ProductType?

    /// The UUID the app associated with the customer's account at purchase time.
    ///
    /// Kept as the string Apple sends, so a malformed value never makes the payload undecodable;
    /// use `UUID(uuidString:)` to interpret it.
    public var appAccountToken: String?

    /// Whether the customer bought the purchase or has it through Family Sharing.
    public var inAppOwnershipType: InAppOwnershipType?

    /// When the App Store signed this data.
    @AppStoreDate public var signedDate: Date?

    /// Why the App Store refunded or revoked the transaction; absent unless revoked.
    public var revocationReason: RevocationReason?

    /// When the App Store refunded or revoked the transaction; absent unless revoked.
    @AppStoreDate public var revocationDate: Date?

    /// Whether the customer upgraded to another subscription (the transaction is superseded).
    public var isUpgraded: Bool?

    /// The kind of offer applied.
    public var offerType: OfferType?

    /// The identifier of the offer code, promotional offer or win-back offer applied.
    public var offerIdentifier: String?

    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// The three-letter ISO 3166-1 alpha-3 country code of the App Store storefront.
    public var storefront: String?

    /// Apple's identifier of the storefront.
    public var storefrontId: String?

    /// Whether the customer purchased or the App Store renewed.
    public var transactionReason: TransactionReason?

    /// The ISO 4217 currency code of the price.
    public var currency: String?

    /// The price in milliunits of the currency (10990 = 10.99).
    public var price: Int64?

    /// How the applied offer charges the customer.
    public var offerDiscountType: OfferDiscountType?

    /// The unique identifier of the app download transaction (the AppTransaction).
    public var appTransactionId: String?

    /// The duration of the applied offer, as an ISO 8601 duration (e.g. `P1Y`).
    public var offerPeriod: String?

    /// How the transaction was revoked.
    public var revocationType: RevocationType?

    /// The refunded share of a prorated refund, in milliunits (50000 = 50.000%).
    public var revocationPercentage: Int32?

    /// Advanced Commerce API details; present only for Advanced Commerce purchases.
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?

    /// How the subscription with a commitment is billed.
    public var billingPlanType: BillingPlanType?

    /// Details of a subscription with a billing commitment.
    public var commitmentInfo: TransactionCommitmentInfo?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        originalTransactionId: String? = nil,
        transactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        bundleId: String? = nil,
        productId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil,
        quantity: Int32? = nil,
        type: ProductType? = nil,
        appAccountToken: String? = nil,
        inAppOwnershipType: InAppOwnershipType? = nil,
        signedDate: Date? = nil,
        revocationReason: RevocationReason? = nil,
        revocationDate: Date? = nil,
        isUpgraded: Bool? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        environment: AppStoreEnvironment? = nil,
        storefront: String? = nil,
        storefrontId: String? = nil,
        transactionReason: TransactionReason? = nil,
        currency: String? = nil,
        price: Int64? = nil,
        offerDiscountType: OfferDiscountType? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil,
        revocationType: RevocationType? = nil,
        revocationPercentage: Int32? = nil,
        advancedCommerceInfo: AdvancedCommerceTransactionInfo? = nil,
        billingPlanType: BillingPlanType? = nil,
        commitmentInfo: TransactionCommitmentInfo? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.environment = environment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.transactionReason = transactionReason
        self.currency = currency
        self.price = price
        self.offerDiscountType = offerDiscountType
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.advancedCommerceInfo = advancedCommerceInfo
        self.billingPlanType = billingPlanType
        self.commitmentInfo = commitmentInfo
    }
}
