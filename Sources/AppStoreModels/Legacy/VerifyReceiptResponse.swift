import Foundation

/// The response of Apple's `verifyReceipt` endpoint, and of Storekeeper's local equivalent.
///
/// Covers both generations: the iOS 7+ app receipt (`receipt` with `in_app`) and the iOS 6
/// transaction receipt (`receipt` is itself one transaction, `latest_receipt_info` a single
/// object, `auto_renew_status` at top level). Decoding is lenient about strings and numbers;
/// encoding writes Apple's key order and spelling.
public struct VerifyReceiptResponse: Hashable, Sendable, Codable {
    /// 0 when valid, otherwise the error code (`status`).
    public var status: VerifyReceiptStatus
    /// `Sandbox` or `Production` (`environment`; absent on some errors).
    public var environment: AppStoreEnvironment?
    /// Set by Apple with internal errors 21100–21199: whether retrying may succeed (`is-retryable`).
    public var isRetryable: Bool?
    /// The decoded app receipt (iOS 7 and later).
    public var receipt: LegacyReceipt?
    /// The decoded iOS 6 transaction receipt, sent under the same `receipt` key.
    public var transactionReceipt: LegacyInAppPurchase?
    /// All in-app purchase transactions of the customer, newest renewals included (`latest_receipt_info`).
    public var latestReceiptInfo: [LegacyInAppPurchase]?
    /// The latest base64 receipt (`latest_receipt`).
    public var latestReceipt: String?
    /// iOS 6 only: the last transaction of an expired subscription (`latest_expired_receipt_info`).
    public var latestExpiredReceiptInfo: LegacyInAppPurchase?
    /// Renewal state of each auto-renewable subscription (`pending_renewal_info`).
    public var pendingRenewalInfo: [LegacyPendingRenewalInfo]?
    /// iOS 6 only: whether the subscription renews (`auto_renew_status`).
    public var autoRenewStatus: Bool?
    /// iOS 6 only: the product the subscription renews to (`auto_renew_product_id`).
    public var autoRenewProductId: String?

    public init(
        status: VerifyReceiptStatus, environment: AppStoreEnvironment? = nil, isRetryable: Bool? = nil,
        receipt: LegacyReceipt? = nil, transactionReceipt: LegacyInAppPurchase? = nil,
        latestReceiptInfo: [LegacyInAppPurchase]? = nil, latestReceipt: String? = nil,
        latestExpiredReceiptInfo: LegacyInAppPurchase? = nil,
        pendingRenewalInfo: [LegacyPendingRenewalInfo]? = nil,
        autoRenewStatus: Bool? = nil, autoRenewProductId: String? = nil
    ) {
        self.status = status
        self.environment = environment
        self.isRetryable = isRetryable
        self.receipt = receipt
        self.transactionReceipt = transactionReceipt
        self.latestReceiptInfo = latestReceiptInfo
        self.latestReceipt = latestReceipt
        self.latestExpiredReceiptInfo = latestExpiredReceiptInfo
        self.pendingRenewalInfo = pendingRenewalInfo
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductId = autoRenewProductId
    }

    /// The keys that only an iOS 7+ app receipt carries.
    private static let appReceiptKeys = ["in_app", "bundle_id", "receipt_type", "application_version"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyCodingKey.self)
        guard let code = container.lenientInt64("status"), let status = Int(exactly: code) else {
            throw DecodingError.dataCorruptedError(
                forKey: LegacyCodingKey("status"), in: container, debugDescription: "status is missing or not an integer")
        }
        self.status = VerifyReceiptStatus(rawValue: status)
        environment = container.lenientString("environment").map(AppStoreEnvironment.init(rawValue:))
        isRetryable = container.lenientBool("is-retryable")
        if container.contains(LegacyCodingKey("receipt")) {
            let body = try container.nestedContainer(keyedBy: LegacyCodingKey.self, forKey: LegacyCodingKey("receipt"))
            if Self.appReceiptKeys.contains(where: { body.contains(LegacyCodingKey($0)) }) {
                receipt = try container.nested(LegacyReceipt.self, "receipt")
            } else {
                transactionReceipt = try container.nested(LegacyInAppPurchase.self, "receipt")
            }
        }
        latestReceiptInfo = try container.transactionList("latest_receipt_info")
        latestReceipt = container.lenientString("latest_receipt")
        latestExpiredReceiptInfo = try container.nested(LegacyInAppPurchase.self, "latest_expired_receipt_info")
        pendingRenewalInfo = try container.nested([LegacyPendingRenewalInfo].self, "pending_renewal_info")
        autoRenewStatus = container.lenientBool("auto_renew_status")
        autoRenewProductId = container.lenientString("auto_renew_product_id")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyCodingKey.self)
        try container.encode(status.rawValue, forKey: LegacyCodingKey("status"))
        try container.encodeString(environment?.rawValue, "environment")
        try container.encodeBool(isRetryable, "is-retryable")
        try container.encodeNested(receipt, "receipt")
        try container.encodeNested(transactionReceipt, "receipt")
        if transactionReceipt != nil, let latestReceiptInfo, latestReceiptInfo.count == 1 {
            try container.encodeNested(latestReceiptInfo[0], "latest_receipt_info")
        } else {
            try container.encodeNested(latestReceiptInfo, "latest_receipt_info")
        }
        try container.encodeString(latestReceipt, "latest_receipt")
        try container.encodeNested(latestExpiredReceiptInfo, "latest_expired_receipt_info")
        try container.encodeNested(pendingRenewalInfo, "pending_renewal_info")
        if let autoRenewStatus {
            try container.encode(autoRenewStatus ? 1 : 0, forKey: LegacyCodingKey("auto_renew_status"))
        }
        try container.encodeString(autoRenewProductId, "auto_renew_product_id")
    }
}
