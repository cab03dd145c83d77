/// The body of the Advanced Commerce Cancel a Subscription request.
public struct AdvancedCommerceSubscriptionCancelRequest: Codable, Hashable, Sendable {
    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(requestInfo: AdvancedCommerceRequestInfo, storefront: String? = nil) {
        self.requestInfo = requestInfo
        self.storefront = storefront
    }
}
