import Foundation

/// One in-app purchase transaction in a legacy response: an entry of `receipt.in_app` or
/// `latest_receipt_info` (`verifyReceipt`, V1 `unified_receipt`), or an iOS 6 transaction receipt.
///
/// Decoding accepts every spelling Apple (and test fixtures) use: numbers or strings for counts
/// and ids, `true`/`"true"`/`1`/`"1"` for flags, dates from `<name>_ms` or from the formatted
/// `<name>` (iOS 6: milliseconds in `expires_date`, text in `expires_date_formatted`); masked or
/// empty values become `nil`. Encoding writes Apple's canonical form: strings everywhere, every
/// date as the `<name>`, `<name>_ms`, `<name>_pst` trio, flags as `"true"`/`"false"`.
public struct LegacyInAppPurchase: Hashable, Sendable, Codable {
    /// The number of items purchased (`quantity`).
    public var quantity: Int?
    /// The product identifier (`product_id`).
    public var productId: String?
    /// The transaction identifier (`transaction_id`).
    public var transactionId: String?
    /// The transaction identifier of the original purchase (`original_transaction_id`).
    public var originalTransactionId: String?
    /// When the App Store charged the account (`purchase_date*`).
    public var purchaseDate: Date?
    /// When the original purchase happened (`original_purchase_date*`).
    public var originalPurchaseDate: Date?
    /// When an auto-renewable subscription period expires (`expires_date*`).
    public var expiresDate: Date?
    /// When Apple Support refunded the transaction (`cancellation_date*`).
    public var cancellationDate: Date?
    /// Why the transaction was refunded: `"1"` app issue, `"0"` other (`cancellation_reason`).
    public var cancellationReason: String?
    /// The id of a subscription purchase event across devices (`web_order_line_item_id`).
    public var webOrderLineItemId: String?
    /// Whether the period is a free trial (`is_trial_period`).
    public var isTrialPeriod: Bool?
    /// Whether the period is an introductory price period (`is_in_intro_offer_period`).
    public var isInIntroOfferPeriod: Bool?
    /// Whether the transaction was cancelled by an upgrade (`is_upgraded`).
    public var isUpgraded: Bool?
    /// The promotional offer redeemed (`promotional_offer_id`).
    public var promotionalOfferId: String?
    /// The offer code reference name redeemed (`offer_code_ref_name`).
    public var offerCodeRefName: String?
    /// The subscription group (`subscription_group_identifier`).
    public var subscriptionGroupIdentifier: String?
    /// Purchased or shared through Family Sharing (`in_app_ownership_type`).
    public var inAppOwnershipType: InAppOwnershipType?
    /// The app account token set at purchase (`app_account_token`).
    public var appAccountToken: String?
    /// iOS 6 transaction receipts: the bundle id (`bid`).
    public var bid: String?
    /// iOS 6 transaction receipts: the bundle version (`bvrs`).
    public var bvrs: String?
    /// iOS 6 transaction receipts: the product's App Store id (`item_id`).
    public var itemId: String?
    /// iOS 6 transaction receipts: the app's App Store id (`app_item_id`).
    public var appItemId: String?
    /// iOS 6 transaction receipts: the app version id (`version_external_identifier`).
    public var versionExternalIdentifier: String?
    /// iOS 6 transaction receipts: the device's unique identifier (`unique_identifier`).
    public var uniqueIdentifier: String?
    /// iOS 6 transaction receipts: the vendor identifier (`unique_vendor_identifier`).
    public var uniqueVendorIdentifier: String?

    public init(
        quantity: Int? = nil, productId: String? = nil, transactionId: String? = nil,
        originalTransactionId: String? = nil, purchaseDate: Date? = nil, originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil, cancellationDate: Date? = nil, cancellationReason: String? = nil,
        webOrderLineItemId: String? = nil, isTrialPeriod: Bool? = nil, isInIntroOfferPeriod: Bool? = nil,
        isUpgraded: Bool? = nil, promotionalOfferId: String? = nil, offerCodeRefName: String? = nil,
        subscriptionGroupIdentifier: String? = nil, inAppOwnershipType: InAppOwnershipType? = nil,
        appAccountToken: String? = nil
    ) {
        self.quantity = quantity
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.cancellationReason = cancellationReason
        self.webOrderLineItemId = webOrderLineItemId
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.isUpgraded = isUpgraded
        self.promotionalOfferId = promotionalOfferId
        self.offerCodeRefName = offerCodeRefName
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.inAppOwnershipType = inAppOwnershipType
        self.appAccountToken = appAccountToken
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyCodingKey.self)
        quantity = container.lenientInt64("quantity").flatMap { Int(exactly: $0) }
        productId = container.lenientString("product_id")
        transactionId = container.lenientString("transaction_id")
        originalTransactionId = container.lenientString("original_transaction_id")
        purchaseDate = container.legacyDate("purchase_date")
        originalPurchaseDate = container.legacyDate("original_purchase_date")
        expiresDate = container.legacyDate("expires_date")
        cancellationDate = container.legacyDate("cancellation_date")
        cancellationReason = container.lenientString("cancellation_reason")
        webOrderLineItemId = container.lenientString("web_order_line_item_id")
        isTrialPeriod = container.lenientBool("is_trial_period")
        isInIntroOfferPeriod = container.lenientBool("is_in_intro_offer_period")
        isUpgraded = container.lenientBool("is_upgraded")
        promotionalOfferId = container.lenientString("promotional_offer_id")
        offerCodeRefName = container.lenientString("offer_code_ref_name")
        subscriptionGroupIdentifier = container.lenientString("subscription_group_identifier")
        inAppOwnershipType = container.lenientString("in_app_ownership_type").map(InAppOwnershipType.init(rawValue:))
        appAccountToken = container.lenientString("app_account_token")
        bid = container.lenientString("bid")
        bvrs = container.lenientString("bvrs")
        itemId = container.lenientString("item_id")
        appItemId = container.lenientString("app_item_id")
        versionExternalIdentifier = container.lenientString("version_external_identifier")
        uniqueIdentifier = container.lenientString("unique_identifier")
        uniqueVendorIdentifier = container.lenientString("unique_vendor_identifier")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyCodingKey.self)
        try container.encodeIntegerString(quantity.map(Int64.init), "quantity")
        try container.encodeString(productId, "product_id")
        try container.encodeString(transactionId, "transaction_id")
        try container.encodeString(originalTransactionId, "original_transaction_id")
        try container.encodeLegacyDate(purchaseDate, "purchase_date")
        try container.encodeLegacyDate(originalPurchaseDate, "original_purchase_date")
        try container.encodeLegacyDate(expiresDate, "expires_date")
        try container.encodeLegacyDate(cancellationDate, "cancellation_date")
        try container.encodeString(cancellationReason, "cancellation_reason")
        try container.encodeString(webOrderLineItemId, "web_order_line_item_id")
        try container.encodeBool(isTrialPeriod, "is_trial_period")
        try container.encodeBool(isInIntroOfferPeriod, "is_in_intro_offer_period")
        try container.encodeBool(isUpgraded, "is_upgraded")
        try container.encodeString(promotionalOfferId, "promotional_offer_id")
        try container.encodeString(offerCodeRefName, "offer_code_ref_name")
        try container.encodeString(inAppOwnershipType?.rawValue, "in_app_ownership_type")
        try container.encodeString(subscriptionGroupIdentifier, "subscription_group_identifier")
        try container.encodeString(appAccountToken, "app_account_token")
        try container.encodeString(bid, "bid")
        try container.encodeString(bvrs, "bvrs")
        try container.encodeString(itemId, "item_id")
        try container.encodeString(appItemId, "app_item_id")
        try container.encodeString(versionExternalIdentifier, "version_external_identifier")
        try container.encodeString(uniqueIdentifier, "unique_identifier")
        try container.encodeString(uniqueVendorIdentifier, "unique_vendor_identifier")
    }
}
