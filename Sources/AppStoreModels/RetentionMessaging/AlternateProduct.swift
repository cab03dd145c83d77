/// A retention message suggesting another subscription product.
public struct AlternateProduct: Codable, Hashable, Sendable {
    /// The identifier of an approved message (a UUID string).
    public var messageIdentifier: String?

    /// The product to suggest.
    public var productId: String?

    /// The billing plan to suggest.
    public var billingPlanType: BillingPlanType?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        messageIdentifier: String? = nil,
        productId: String? = nil,
        billingPlanType: BillingPlanType? = nil
    ) {
        self.messageIdentifier = messageIdentifier
        self.productId = productId
        self.billingPlanType = billingPlanType
    }
}
