import Foundation

/// An App Store Server Notification V1: the plain JSON Apple POSTs for subscription events
/// (deprecated, still sent to apps that configured a V1 URL).
///
/// Authenticity rests only on ``password``, the app's shared secret, which the receiver must
/// compare with its own. Besides the current fields this decodes the pre-2021 top-level keys
/// (`latest_receipt_info`, `latest_expired_receipt_info`, `cancellation_date`, …), which Apple
/// replaced by ``unifiedReceipt``.
public struct NotificationV1: Hashable, Sendable, Codable {
    /// The event (`notification_type`).
    public var notificationType: NotificationTypeV1?
    /// The shared secret configured for the app (`password`).
    public var password: String?
    /// `PROD` or `Sandbox` (`environment`).
    public var environment: NotificationV1Environment?
    /// The app's App Store id of the subscription's app (`auto_renew_adam_id`).
    public var autoRenewAdamId: String?
    /// The product the subscription renews to (`auto_renew_product_id`).
    public var autoRenewProductId: String?
    /// Whether the subscription renews; `"true"`/`"false"` here (`auto_renew_status`).
    public var autoRenewStatus: Bool?
    /// When auto-renew was last turned on or off (`auto_renew_status_change_date*`).
    public var autoRenewStatusChangeDate: Date?
    /// Why the subscription expired (`expiration_intent`).
    public var expirationIntent: ExpirationIntent?
    /// The app's bundle id (`bid`).
    public var bid: String?
    /// The app's bundle version (`bvrs`).
    public var bvrs: String?
    /// The original transaction id of the subscription (`original_transaction_id`).
    public var originalTransactionId: String?
    /// The latest receipt state (`unified_receipt`).
    public var unifiedReceipt: UnifiedReceipt?
    /// Pre-2021: the latest base64 receipt (`latest_receipt`).
    public var latestReceipt: String?
    /// Pre-2021: the latest transaction(s) (`latest_receipt_info`, an object or a list).
    public var latestReceiptInfo: [LegacyInAppPurchase]?
    /// Pre-2021: the latest receipt of an expired subscription (`latest_expired_receipt`).
    public var latestExpiredReceipt: String?
    /// Pre-2021: the last transaction of an expired subscription (`latest_expired_receipt_info`).
    public var latestExpiredReceiptInfo: LegacyInAppPurchase?
    /// Pre-2021: when Apple Support refunded the transaction (`cancellation_date*`).
    public var cancellationDate: Date?
    /// Pre-2021: the subscription purchase event id (`web_order_line_item_id`).
    public var webOrderLineItemId: String?
    /// Pre-2021: renewal state at top level (`pending_renewal_info`).
    public var pendingRenewalInfo: [LegacyPendingRenewalInfo]?

    public init(
        notificationType: NotificationTypeV1? = nil, password: String? = nil,
        environment: NotificationV1Environment? = nil, autoRenewAdamId: String? = nil,
        autoRenewProductId: String? = nil, autoRenewStatus: Bool? = nil, autoRenewStatusChangeDate: Date? = nil,
        expirationIntent: ExpirationIntent? = nil, bid: String? = nil, bvrs: String? = nil,
        originalTransactionId: String? = nil, unifiedReceipt: UnifiedReceipt? = nil
    ) {
        self.notificationType = notificationType
        self.password = password
        self.environment = environment
        self.autoRenewAdamId = autoRenewAdamId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewStatusChangeDate = autoRenewStatusChangeDate
        self.expirationIntent = expirationIntent
        self.bid = bid
        self.bvrs = bvrs
        self.originalTransactionId = originalTransactionId
        self.unifiedReceipt = unifiedReceipt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyCodingKey.self)
        notificationType = container.lenientString("notification_type").map(NotificationTypeV1.init(rawValue:))
        password = container.lenientString("password")
        environment = container.lenientString("environment").map(NotificationV1Environment.init(rawValue:))
        autoRenewAdamId = container.lenientString("auto_renew_adam_id")
        autoRenewProductId = container.lenientString("auto_renew_product_id")
        autoRenewStatus = container.lenientBool("auto_renew_status")
        autoRenewStatusChangeDate = container.legacyDate("auto_renew_status_change_date")
        expirationIntent = container.lenientInt64("expiration_intent")
            .flatMap { Int32(exactly: $0) }.map(ExpirationIntent.init(rawValue:))
        bid = container.lenientString("bid")
        bvrs = container.lenientString("bvrs")
        originalTransactionId = container.lenientString("original_transaction_id")
        unifiedReceipt = try container.nested(UnifiedReceipt.self, "unified_receipt")
        latestReceipt = container.lenientString("latest_receipt")
        latestReceiptInfo = try container.transactionList("latest_receipt_info")
        latestExpiredReceipt = container.lenientString("latest_expired_receipt")
        latestExpiredReceiptInfo = try container.nested(LegacyInAppPurchase.self, "latest_expired_receipt_info")
        cancellationDate = container.legacyDate("cancellation_date")
        webOrderLineItemId = container.lenientString("web_order_line_item_id")
        pendingRenewalInfo = try container.nested([LegacyPendingRenewalInfo].self, "pending_renewal_info")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyCodingKey.self)
        try container.encodeString(notificationType?.rawValue, "notification_type")
        try container.encodeString(password, "password")
        try container.encodeString(environment?.rawValue, "environment")
        try container.encodeString(autoRenewAdamId, "auto_renew_adam_id")
        try container.encodeString(autoRenewProductId, "auto_renew_product_id")
        try container.encodeBool(autoRenewStatus, "auto_renew_status")
        try container.encodeLegacyDate(autoRenewStatusChangeDate, "auto_renew_status_change_date")
        if let expirationIntent {
            try container.encode(expirationIntent.rawValue, forKey: LegacyCodingKey("expiration_intent"))
        }
        try container.encodeString(bid, "bid")
        try container.encodeString(bvrs, "bvrs")
        try container.encodeString(originalTransactionId, "original_transaction_id")
        try container.encodeNested(unifiedReceipt, "unified_receipt")
        try container.encodeString(latestReceipt, "latest_receipt")
        try container.encodeNested(latestReceiptInfo, "latest_receipt_info")
        try container.encodeString(latestExpiredReceipt, "latest_expired_receipt")
        try container.encodeNested(latestExpiredReceiptInfo, "latest_expired_receipt_info")
        try container.encodeLegacyDate(cancellationDate, "cancellation_date")
        try container.encodeString(webOrderLineItemId, "web_order_line_item_id")
        try container.encodeNested(pendingRenewalInfo, "pending_renewal_info")
    }
}
