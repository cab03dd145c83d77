import Foundation

/// The `unified_receipt` of a V1 notification: the latest receipt state, shaped like a
/// `verifyReceipt` response without the decoded `receipt`.
public struct UnifiedReceipt: Hashable, Sendable, Codable {
    /// 0 when the latest receipt is valid (`status`).
    public var status: VerifyReceiptStatus?
    /// `Sandbox` or `Production` (`environment`).
    public var environment: AppStoreEnvironment?
    /// The latest base64 receipt (`latest_receipt`).
    public var latestReceipt: String?
    /// The customer's in-app purchase transactions, newest first (`latest_receipt_info`).
    public var latestReceiptInfo: [LegacyInAppPurchase]?
    /// Renewal state of each auto-renewable subscription (`pending_renewal_info`).
    public var pendingRenewalInfo: [LegacyPendingRenewalInfo]?

    public init(
        status: VerifyReceiptStatus? = nil, environment: AppStoreEnvironment? = nil, latestReceipt: String? = nil,
        latestReceiptInfo: [LegacyInAppPurchase]? = nil, pendingRenewalInfo: [LegacyPendingRenewalInfo]? = nil
    ) {
        self.status = status
        self.environment = environment
        self.latestReceipt = latestReceipt
        self.latestReceiptInfo = latestReceiptInfo
        self.pendingRenewalInfo = pendingRenewalInfo
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyCodingKey.self)
        status = container.lenientInt64("status").flatMap { Int(exactly: $0) }.map(VerifyReceiptStatus.init(rawValue:))
        environment = container.lenientString("environment").map(AppStoreEnvironment.init(rawValue:))
        latestReceipt = container.lenientString("latest_receipt")
        latestReceiptInfo = try container.transactionList("latest_receipt_info")
        pendingRenewalInfo = try container.nested([LegacyPendingRenewalInfo].self, "pending_renewal_info")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyCodingKey.self)
        if let status { try container.encode(status.rawValue, forKey: LegacyCodingKey("status")) }
        try container.encodeString(environment?.rawValue, "environment")
        try container.encodeNested(latestReceiptInfo, "latest_receipt_info")
        try container.encodeString(latestReceipt, "latest_receipt")
        try container.encodeNested(pendingRenewalInfo, "pending_renewal_info")
    }
}
