/// The body of the Advanced Commerce Change Subscription Price request.
public struct AdvancedCommerceSubscriptionPriceChangeRequest: Codable, Hashable, Sendable {
    /// The ISO 4217 currency of the prices.
    public var currency: String?

    /// The SKUs and their new prices.
    public var items: [AdvancedCommerceSubscriptionPriceChangeItem]

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        currency: String? = nil,
        items: [AdvancedCommerceSubscriptionPriceChangeItem],
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil
    ) {
        self.currency = currency
        self.items = items
        self.requestInfo = requestInfo
        self.storefront = storefront
    }
}
