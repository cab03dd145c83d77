/// An in-app request (signed by your server, passed to StoreKit) to modify an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionModifyInAppRequest: AdvancedCommerceInAppRequest, Codable, Hashable {
    /// SKUs to add.
    public var addItems: [AdvancedCommerceSubscriptionModifyAddItem]?

    /// SKUs to replace.
    public var changeItems: [AdvancedCommerceSubscriptionModifyChangeItem]?

    /// The ISO 4217 currency of the prices.
    public var currency: String?

    /// New display name and description.
    public var descriptors: AdvancedCommerceSubscriptionModifyDescriptors?

    /// A new billing period.
    public var periodChange: AdvancedCommerceSubscriptionModifyPeriodChange?

    /// SKUs to remove.
    public var removeItems: [AdvancedCommerceSubscriptionModifyRemoveItem]?

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// Whether to keep the current billing cycle.
    public var retainBillingCycle: Bool

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// A new tax code.
    public var taxCode: String?

    /// A transaction of the subscription to modify.
    public var transactionId: String

    /// The operation this request performs; always encoded.
    public var operation: String { "MODIFY_SUBSCRIPTION" }

    /// The request format version; always encoded.
    public var version: String { "1" }

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        addItems: [AdvancedCommerceSubscriptionModifyAddItem]? = nil,
        changeItems: [AdvancedCommerceSubscriptionModifyChangeItem]? = nil,
        currency: String? = nil,
        descriptors: AdvancedCommerceSubscriptionModifyDescriptors? = nil,
        periodChange: AdvancedCommerceSubscriptionModifyPeriodChange? = nil,
        removeItems: [AdvancedCommerceSubscriptionModifyRemoveItem]? = nil,
        requestInfo: AdvancedCommerceRequestInfo,
        retainBillingCycle: Bool,
        storefront: String? = nil,
        taxCode: String? = nil,
        transactionId: String
    ) {
        self.addItems = addItems
        self.changeItems = changeItems
        self.currency = currency
        self.descriptors = descriptors
        self.periodChange = periodChange
        self.removeItems = removeItems
        self.requestInfo = requestInfo
        self.retainBillingCycle = retainBillingCycle
        self.storefront = storefront
        self.taxCode = taxCode
        self.transactionId = transactionId
    }

    private enum CodingKeys: String, CodingKey {
        case addItems
        case changeItems
        case currency
        case descriptors
        case periodChange
        case removeItems
        case requestInfo
        case retainBillingCycle
        case storefront
        case taxCode
        case transactionId
    }

    private enum ConstantKeys: String, CodingKey {
        case operation
        case version
    }

    /// Encodes the fields and the constant `operation`, `version`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(addItems, forKey: .addItems)
        try container.encodeIfPresent(changeItems, forKey: .changeItems)
        try container.encodeIfPresent(currency, forKey: .currency)
        try container.encodeIfPresent(descriptors, forKey: .descriptors)
        try container.encodeIfPresent(periodChange, forKey: .periodChange)
        try container.encodeIfPresent(removeItems, forKey: .removeItems)
        try container.encode(requestInfo, forKey: .requestInfo)
        try container.encode(retainBillingCycle, forKey: .retainBillingCycle)
        try container.encodeIfPresent(storefront, forKey: .storefront)
        try container.encodeIfPresent(taxCode, forKey: .taxCode)
        try container.encode(transactionId, forKey: .transactionId)
        var constants = encoder.container(keyedBy: ConstantKeys.self)
        try constants.encode(operation, forKey: .operation)
        try constants.encode(version, forKey: .version)
    }
}
