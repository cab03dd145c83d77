/// The body of the Advanced Commerce Change Subscription Metadata request.
public struct AdvancedCommerceSubscriptionChangeMetadataRequest: Codable, Hashable, Sendable {
    /// New display name and description.
    public var descriptors: AdvancedCommerceSubscriptionChangeMetadataDescriptors?

    /// SKU metadata changes.
    public var items: [AdvancedCommerceSubscriptionChangeMetadataItem]?

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// A new tax code.
    public var taxCode: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        descriptors: AdvancedCommerceSubscriptionChangeMetadataDescriptors? = nil,
        items: [AdvancedCommerceSubscriptionChangeMetadataItem]? = nil,
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil,
        taxCode: String? = nil
    ) {
        self.descriptors = descriptors
        self.items = items
        self.requestInfo = requestInfo
        self.storefront = storefront
        self.taxCode = taxCode
    }
}
