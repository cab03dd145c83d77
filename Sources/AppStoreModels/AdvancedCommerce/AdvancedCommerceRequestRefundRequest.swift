/// The body of the Advanced Commerce Request a Refund request.
public struct AdvancedCommerceRequestRefundRequest: Codable, Hashable, Sendable {
    /// The ISO 4217 currency of refund amounts.
    public var currency: String?

    /// The SKUs to refund.
    public var items: [AdvancedCommerceRequestRefundItem]

    /// Whether you accept the risk of refunding before Apple's checks.
    public var refundRiskingPreference: Bool

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        currency: String? = nil,
        items: [AdvancedCommerceRequestRefundItem],
        refundRiskingPreference: Bool,
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil
    ) {
        self.currency = currency
        self.items = items
        self.refundRiskingPreference = refundRiskingPreference
        self.requestInfo = requestInfo
        self.storefront = storefront
    }
}
