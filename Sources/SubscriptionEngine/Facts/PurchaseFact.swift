import Foundation

/// One transaction, normalized: a period of an auto-renewable subscription, a non-renewing
/// subscription, a consumable or a non-consumable purchase, or a manual grant.
///
/// Every source becomes this one shape: a decoded receipt's `in_app`, a `verifyReceipt`
/// response's `latest_receipt_info`, a StoreKit 2 transaction, a transaction inside a V1 or V2
/// notification, or an operator's grant. Facts about the same ``transactionId`` from several
/// sources merge (see ``merged(with:)``), so the same history read twice gives the same facts.
public struct PurchaseFact: Sendable, Hashable, Codable {
    /// Apple's unique id of this transaction (or the operator's id of a manual grant).
    public var transactionId: String
    /// The id of the first transaction of the subscription chain; equals ``transactionId``
    /// for other products.
    public var originalTransactionId: String
    /// The product bought.
    public var productId: String
    /// The product's type when the source says; otherwise the catalog decides.
    public var productType: ProductKind?
    /// The subscription group when the source says; otherwise the catalog decides.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged for this transaction (for a renewal: the start of its period).
    public var purchaseDate: Date
    /// When the chain's first transaction was bought.
    public var originalPurchaseDate: Date?
    /// The end of a subscription period, when Apple gives one.
    public var expiresDate: Date?
    /// How many items were bought (consumables).
    public var quantity: Int
    /// The offer this period was bought with, if any.
    public var offer: Offer?
    /// Bought by the customer or shared by a family member.
    public var ownership: Ownership
    /// Apple's (or the operator's) taking back of this transaction, if any.
    public var revocation: Revocation?
    /// True when the customer upgraded away from this period (Apple's `is_upgraded` / `isUpgraded`).
    public var isUpgraded: Bool
    /// What the customer paid, when known (StoreKit 2 gives it; legacy sources need the catalog).
    public var price: Money?
    /// Apple's id of this subscription period across devices (`web_order_line_item_id`).
    public var webOrderLineItemId: String?
    /// When Apple signed the data this fact came from; later signed data about the same
    /// transaction supersedes earlier (a refund, a refund reversal, a renewal-date extension).
    public var signedDate: Date?
    /// Apple's environment of the data (`Production`, `Sandbox` …), when the source says:
    /// analytics counts production only unless asked.
    public var environment: String?
    /// The App Store storefront (ISO 3166-1 alpha-3 country) of the purchase, when known.
    public var storefront: String?
    /// `MONTHLY` for a period of a monthly plan with a 12-month commitment, `BILLED_UPFRONT`
    /// (or absent) otherwise.
    public var billingPlanType: String?
    /// The commitment a `MONTHLY` period belongs to.
    public var commitment: Commitment?

    public init(
        transactionId: String,
        originalTransactionId: String? = nil,
        productId: String,
        productType: ProductKind? = nil,
        subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Date,
        originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil,
        quantity: Int = 1,
        offer: Offer? = nil,
        ownership: Ownership = .purchased,
        revocation: Revocation? = nil,
        isUpgraded: Bool = false,
        price: Money? = nil,
        webOrderLineItemId: String? = nil,
        signedDate: Date? = nil,
        environment: String? = nil,
        storefront: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.productId = productId
        self.productType = productType
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.offer = offer
        self.ownership = ownership
        self.revocation = revocation
        self.isUpgraded = isUpgraded
        self.price = price
        self.webOrderLineItemId = webOrderLineItemId
        self.signedDate = signedDate
        self.environment = environment
        self.storefront = storefront
    }

    /// A grant made by the app's operator, outside the App Store: access to `productId`
    /// from `startDate` until `endDate` (forever when `nil`).
    ///
    /// It behaves as a non-renewing subscription with a known end, or as a non-consumable when
    /// open-ended, and maps to entitlements through the catalog like any purchase.
    public static func manualGrant(id: String, productId: String, startDate: Date, endDate: Date?) -> PurchaseFact {
        PurchaseFact(
            transactionId: id,
            productId: productId,
            productType: endDate == nil ? .nonConsumable : .nonRenewing,
            purchaseDate: startDate,
            expiresDate: endDate,
            price: nil
        )
    }

    /// True for an operator's grant (``manualGrant(id:productId:startDate:endDate:)``; the
    /// server gives every grant an id beginning `grant:`, which no App Store transaction has):
    /// access given outside the App Store, which nobody paid for.
    public var isManualGrant: Bool { transactionId.hasPrefix("grant:") }

    /// True when `revocation` takes access away and has happened by `instant`.
    func isRevoked(at instant: Date) -> Bool {
        guard let revocation, revocation.removesAccess, !isUpgraded else { return false }
        return revocation.date <= instant
    }
}
