/// The JSON body POSTed to Apple's `verifyReceipt` endpoint.
public struct VerifyReceiptRequest: Hashable, Sendable, Codable {
    /// The base64-encoded receipt (`receipt-data`).
    public var receiptData: String
    /// The app's shared secret, required for auto-renewable subscriptions (`password`).
    public var password: String?
    /// Return only the newest transaction of each subscription in `latest_receipt_info`
    /// (`exclude-old-transactions`).
    public var excludeOldTransactions: Bool?

    public init(receiptData: String, password: String? = nil, excludeOldTransactions: Bool? = nil) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data"
        case password
        case excludeOldTransactions = "exclude-old-transactions"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        receiptData = try container.decode(String.self, forKey: .receiptData)
        password = try container.decodeIfPresent(String.self, forKey: .password)
        let legacy = try decoder.container(keyedBy: LegacyCodingKey.self)
        excludeOldTransactions = legacy.lenientBool(CodingKeys.excludeOldTransactions.rawValue)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(receiptData, forKey: .receiptData)
        try container.encodeIfPresent(password, forKey: .password)
        try container.encodeIfPresent(excludeOldTransactions, forKey: .excludeOldTransactions)
    }
}
