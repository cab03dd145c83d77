/// The body of the Advanced Commerce Revoke a Subscription request (immediate end with a refund).
public struct AdvancedCommerceSubscriptionRevokeRequest: Codable, Hashable, Sendable {
    /// Why the refund is given.
    public var refundReason: AdvancedCommerceRefundReason

    /// Whether you accept the risk of refunding before Apple's checks.
    public var refundRiskingPreference: Bool

    /// How much to refund.
    public var refundType: AdvancedCommerceRefundType

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        refundReason: AdvancedCommerceRefundReason,
        refundRiskingPreference: Bool,
        refundType: AdvancedCommerceRefundType,
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil
    ) {
        self.refundReason = refundReason
        self.refundRiskingPreference = refundRiskingPreference
        self.refundType = refundType
        self.requestInfo = requestInfo
        self.storefront = storefront
    }
}
