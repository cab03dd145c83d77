import Foundation

/// A refund of an Advanced Commerce SKU.
public struct AdvancedCommerceRefund: Codable, Hashable, Sendable {
    /// The refunded amount, in milliunits.
    public var refundAmount: Int64?

    /// When the refund was granted.
    @AppStoreDate public var refundDate: Date?

    /// Why the refund was given.
    public var refundReason: AdvancedCommerceRefundReason?

    /// How much was refunded.
    public var refundType: AdvancedCommerceRefundType?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        refundAmount: Int64? = nil,
        refundDate: Date? = nil,
        refundReason: AdvancedCommerceRefundReason? = nil,
        refundType: AdvancedCommerceRefundType? = nil
    ) {
        self.refundAmount = refundAmount
        self.refundDate = refundDate
        self.refundReason = refundReason
        self.refundType = refundType
    }
}
