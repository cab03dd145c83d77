/// A SKU to refund.
public struct AdvancedCommerceRequestRefundItem: Codable, Hashable, Sendable {
    /// The SKU.
    public var sku: String

    /// The amount to refund for `CUSTOM` refunds, in milliunits.
    public var refundAmount: Int64?

    /// Why the refund is given.
    public var refundReason: AdvancedCommerceRefundReason

    /// How much to refund.
    public var refundType: AdvancedCommerceRefundType

    /// Whether to also revoke the customer's access to the SKU.
    public var revoke: Bool

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        sku: String,
        refundAmount: Int64? = nil,
        refundReason: AdvancedCommerceRefundReason,
        refundType: AdvancedCommerceRefundType,
        revoke: Bool
    ) {
        self.sku = sku
        self.refundAmount = refundAmount
        self.refundReason = refundReason
        self.refundType = refundType
        self.revoke = revoke
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case refundAmount
        case refundReason
        case refundType
        case revoke
    }
}
