/// An in-app request (signed by your server, passed to StoreKit) to reactivate a cancelled Advanced Commerce
/// subscription.
public struct AdvancedCommerceSubscriptionReactivateInAppRequest: AdvancedCommerceInAppRequest, Codable, Hashable {
    /// The SKUs to reactivate; all when absent.
    public var items: [AdvancedCommerceSubscriptionReactivateItem]?

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// A transaction of the subscription to reactivate.
    public var transactionId: String

    /// The operation this request performs; always encoded.
    public var operation: String { "REACTIVATE_SUBSCRIPTION" }

    /// The request format version; always encoded.
    public var version: String { "1" }

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        items: [AdvancedCommerceSubscriptionReactivateItem]? = nil,
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil,
        transactionId: String
    ) {
        self.items = items
        self.requestInfo = requestInfo
        self.storefront = storefront
        self.transactionId = transactionId
    }

    private enum CodingKeys: String, CodingKey {
        case items
        case requestInfo
        case storefront
        case transactionId
    }

    private enum ConstantKeys: String, CodingKey {
        case operation
        case version
    }

    /// Encodes the fields and the constant `operation`, `version`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(items, forKey: .items)
        try container.encode(requestInfo, forKey: .requestInfo)
        try container.encodeIfPresent(storefront, forKey: .storefront)
        try container.encode(transactionId, forKey: .transactionId)
        var constants = encoder.container(keyedBy: ConstantKeys.self)
        try constants.encode(operation, forKey: .operation)
        try constants.encode(version, forKey: .version)
    }
}
