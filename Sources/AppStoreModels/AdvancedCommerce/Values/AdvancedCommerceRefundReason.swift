/// Why an Advanced Commerce refund is given.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceRefundReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The customer did not intend to buy.
    public static let unintendedPurchase = AdvancedCommerceRefundReason(rawValue: "UNINTENDED_PURCHASE")

    /// The purchase was not delivered or did not work.
    public static let fulfillmentIssue = AdvancedCommerceRefundReason(rawValue: "FULFILLMENT_ISSUE")

    /// The customer was not satisfied.
    public static let unsatisfiedWithPurchase = AdvancedCommerceRefundReason(rawValue: "UNSATISFIED_WITH_PURCHASE")

    /// A legal reason.
    public static let legal = AdvancedCommerceRefundReason(rawValue: "LEGAL")

    /// Another reason.
    public static let other = AdvancedCommerceRefundReason(rawValue: "OTHER")

    /// Items were modified in a subscription.
    public static let modifyItemsRefund = AdvancedCommerceRefundReason(rawValue: "MODIFY_ITEMS_REFUND")

    /// Sandbox only: simulates a declined refund.
    public static let simulateRefundDecline = AdvancedCommerceRefundReason(rawValue: "SIMULATE_REFUND_DECLINE")

    public static let known: [AdvancedCommerceRefundReason] = [
        .unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other, .modifyItemsRefund,
        .simulateRefundDecline,
    ]
}
