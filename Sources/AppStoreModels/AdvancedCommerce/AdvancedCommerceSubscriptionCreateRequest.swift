/// An in-app request (signed by your server, passed to StoreKit) to create an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionCreateRequest: AdvancedCommerceInAppRequest, Codable, Hashable {
    /// The ISO 4217 currency of the prices.
    public var currency: String

    /// The subscription's display name and description.
    public var descriptors: AdvancedCommerceDescriptors

    /// The SKUs to subscribe to (at least one).
    public var items: [AdvancedCommerceSubscriptionCreateItem]

    /// The billing period.
    public var period: AdvancedCommercePeriod

    /// The transaction of a previous subscription this one replaces.
    public var previousTransactionId: String?

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// The tax code of the subscription.
    public var taxCode: String

    /// The operation this request performs; always encoded.
    public var operation: String { "CREATE_SUBSCRIPTION" }

    /// The request format version; always encoded.
    public var version: String { "1" }

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        currency: String,
        descriptors: AdvancedCommerceDescriptors,
        items: [AdvancedCommerceSubscriptionCreateItem],
        period: AdvancedCommercePeriod,
        previousTransactionId: String? = nil,
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil,
        taxCode: String
    ) {
        self.currency = currency
        self.descriptors = descriptors
        self.items = items
        self.period = period
        self.previousTransactionId = previousTransactionId
        self.requestInfo = requestInfo
        self.storefront = storefront
        self.taxCode = taxCode
    }

    private enum CodingKeys: String, CodingKey {
        case currency
        case descriptors
        case items
        case period
        case previousTransactionId
        case requestInfo
        case storefront
        case taxCode
    }

    private enum ConstantKeys: String, CodingKey {
        case operation
        case version
    }

    /// Encodes the fields and the constant `operation`, `version`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(currency, forKey: .currency)
        try container.encode(descriptors, forKey: .descriptors)
        try container.encode(items, forKey: .items)
        try container.encode(period, forKey: .period)
        try container.encodeIfPresent(previousTransactionId, forKey: .previousTransactionId)
        try container.encode(requestInfo, forKey: .requestInfo)
        try container.encodeIfPresent(storefront, forKey: .storefront)
        try container.encode(taxCode, forKey: .taxCode)
        var constants = encoder.container(keyedBy: ConstantKeys.self)
        try constants.encode(operation, forKey: .operation)
        try constants.encode(version, forKey: .version)
    }
}
