import Foundation

/// One in-app purchase record of an app receipt (receipt attribute 17), decoded from its
/// ASN.1 attributes 1701–1722.
///
/// Empty strings Apple writes for fields that do not apply (for example an empty
/// `cancellation_date`) decode to `nil`.
public struct AppReceiptInAppPurchase: Hashable, Sendable {
    /// The number of items purchased (1701).
    public var quantity: Int?
    /// The product identifier (1702).
    public var productId: String?
    /// The transaction identifier (1703).
    public var transactionId: String?
    /// When the App Store charged the account (1704).
    public var purchaseDate: Date?
    /// The transaction identifier of the original purchase (1705).
    public var originalTransactionId: String?
    /// When the original purchase happened (1706).
    public var originalPurchaseDate: Date?
    /// Undocumented product kind (1707; 3 on auto-renewable subscriptions in every known receipt).
    public var productType: Int?
    /// When an auto-renewable subscription period expires (1708).
    public var expiresDate: Date?
    /// The subscription purchase event id across devices (1711; `nil` when Apple writes 0).
    public var webOrderLineItemId: Int64?
    /// When Apple Support refunded the transaction (1712).
    public var cancellationDate: Date?
    /// Whether the period is a free trial (1713).
    public var isTrialPeriod: Bool?
    /// Whether the period is an introductory price period (1719).
    public var isInIntroOfferPeriod: Bool?
    /// The promotional offer redeemed (1721).
    public var promotionalOfferId: String?
    /// Every attribute of the record in receipt order, documented or not.
    public var attributes: [ReceiptAttribute]

    public init(
        quantity: Int? = nil, productId: String? = nil, transactionId: String? = nil, purchaseDate: Date? = nil,
        originalTransactionId: String? = nil, originalPurchaseDate: Date? = nil, productType: Int? = nil,
        expiresDate: Date? = nil, webOrderLineItemId: Int64? = nil, cancellationDate: Date? = nil,
        isTrialPeriod: Bool? = nil, isInIntroOfferPeriod: Bool? = nil, promotionalOfferId: String? = nil,
        attributes: [ReceiptAttribute] = []
    ) {
        self.quantity = quantity
        self.productId = productId
        self.transactionId = transactionId
        self.purchaseDate = purchaseDate
        self.originalTransactionId = originalTransactionId
        self.originalPurchaseDate = originalPurchaseDate
        self.productType = productType
        self.expiresDate = expiresDate
        self.webOrderLineItemId = webOrderLineItemId
        self.cancellationDate = cancellationDate
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.promotionalOfferId = promotionalOfferId
        self.attributes = attributes
    }
}
