import Foundation

/// The renewal state of one auto-renewable subscription (`pending_renewal_info` entries in
/// `verifyReceipt` responses and V1 notifications).
///
/// Apple writes the flags here as `"1"`/`"0"`; decoding also accepts booleans, numbers and
/// `"true"`/`"false"`, and empty strings become `nil`. Encoding writes `"1"`/`"0"`.
public struct LegacyPendingRenewalInfo: Hashable, Sendable, Codable {
    /// The product the subscription renews to (`auto_renew_product_id`).
    public var autoRenewProductId: String?
    /// The product currently subscribed (`product_id`).
    public var productId: String?
    /// The original transaction id of the subscription (`original_transaction_id`).
    public var originalTransactionId: String?
    /// Whether the subscription will renew (`auto_renew_status`, `"1"` on).
    public var autoRenewStatus: Bool?
    /// Why the subscription expired (`expiration_intent`: 1 cancelled, 2 billing error,
    /// 3 declined a price increase, 4 product unavailable, 5 unknown).
    public var expirationIntent: ExpirationIntent?
    /// Whether Apple is still trying to renew after a billing failure (`is_in_billing_retry_period`).
    public var isInBillingRetryPeriod: Bool?
    /// When the billing grace period ends (`grace_period_expires_date*`).
    public var gracePeriodExpiresDate: Date?
    /// Whether the customer accepted a price increase (`price_consent_status`; older name).
    public var priceConsentStatus: Bool?
    /// Whether the customer accepted a price increase (`price_increase_status`).
    public var priceIncreaseStatus: Bool?
    /// The promotional offer applying at renewal (`promotional_offer_id`).
    public var promotionalOfferId: String?
    /// The offer code applying at renewal (`offer_code_ref_name`).
    public var offerCodeRefName: String?

    public init(
        autoRenewProductId: String? = nil, productId: String? = nil, originalTransactionId: String? = nil,
        autoRenewStatus: Bool? = nil, expirationIntent: ExpirationIntent? = nil,
        isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Date? = nil,
        priceConsentStatus: Bool? = nil, priceIncreaseStatus: Bool? = nil,
        promotionalOfferId: String? = nil, offerCodeRefName: String? = nil
    ) {
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.priceConsentStatus = priceConsentStatus
        self.priceIncreaseStatus = priceIncreaseStatus
        self.promotionalOfferId = promotionalOfferId
        self.offerCodeRefName = offerCodeRefName
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyCodingKey.self)
        autoRenewProductId = container.lenientString("auto_renew_product_id")
        productId = container.lenientString("product_id")
        originalTransactionId = container.lenientString("original_transaction_id")
        autoRenewStatus = container.lenientBool("auto_renew_status")
        expirationIntent = container.lenientInt64("expiration_intent")
            .flatMap { Int32(exactly: $0) }.map(ExpirationIntent.init(rawValue:))
        isInBillingRetryPeriod = container.lenientBool("is_in_billing_retry_period")
        gracePeriodExpiresDate = container.legacyDate("grace_period_expires_date")
        priceConsentStatus = container.lenientBool("price_consent_status")
        priceIncreaseStatus = container.lenientBool("price_increase_status")
        promotionalOfferId = container.lenientString("promotional_offer_id")
        offerCodeRefName = container.lenientString("offer_code_ref_name")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyCodingKey.self)
        try container.encodeString(autoRenewProductId, "auto_renew_product_id")
        try container.encodeString(productId, "product_id")
        try container.encodeString(originalTransactionId, "original_transaction_id")
        try container.encodeBool(autoRenewStatus, "auto_renew_status", style: .digit)
        try container.encodeString(expirationIntent.map { String($0.rawValue) }, "expiration_intent")
        try container.encodeBool(isInBillingRetryPeriod, "is_in_billing_retry_period", style: .digit)
        try container.encodeLegacyDate(gracePeriodExpiresDate, "grace_period_expires_date")
        try container.encodeBool(priceConsentStatus, "price_consent_status", style: .digit)
        try container.encodeBool(priceIncreaseStatus, "price_increase_status", style: .digit)
        try container.encodeString(promotionalOfferId, "promotional_offer_id")
        try container.encodeString(offerCodeRefName, "offer_code_ref_name")
    }
}
