/// An in-app request (signed by your server, passed to StoreKit) for an Advanced Commerce one-time charge.
public struct AdvancedCommerceOneTimeChargeCreateRequest: AdvancedCommerceInAppRequest, Codable, Hashable {
    /// The ISO 4217 currency of the price.
    public var currency: String

    /// The SKU to charge for.
    public var item: AdvancedCommerceOneTimeChargeItem

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// The tax code of the purchase.
    public var taxCode: String

    /// The operation this request performs; always encoded.
    public var operation: String { "CREATE_ONE_TIME_CHARGE" }

    /// The request format version; always encoded.
    public var version: String { "1" }

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        currency: String,
        item: AdvancedCommerceOneTimeChargeItem,
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil,
        taxCode: String
    ) {
        self.currency = currency
        self.item = item
        self.requestInfo = requestInfo
        self.storefront = storefront
        self.taxCode = taxCode
    }

    private enum CodingKeys: String, CodingKey {
        case currency
        case item
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
        try container.encode(item, forKey: .item)
        try container.encode(requestInfo, forKey: .requestInfo)
        try container.encodeIfPresent(storefront, forKey: .storefront)
        try container.encode(taxCode, forKey: .taxCode)
        var constants = encoder.container(keyedBy: ConstantKeys.self)
        try constants.encode(operation, forKey: .operation)
        try constants.encode(version, forKey: .version)
    }
}
