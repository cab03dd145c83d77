/// Why the customer asked for the refund behind a `CONSUMPTION_REQUEST` notification.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ConsumptionRequestReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The customer did not intend to buy.
    public static let unintendedPurchase = ConsumptionRequestReason(rawValue: "UNINTENDED_PURCHASE")

    /// The customer had trouble receiving or using the purchase.
    public static let fulfillmentIssue = ConsumptionRequestReason(rawValue: "FULFILLMENT_ISSUE")

    /// The customer was not satisfied with the purchase.
    public static let unsatisfiedWithPurchase = ConsumptionRequestReason(rawValue: "UNSATISFIED_WITH_PURCHASE")

    /// A legal reason.
    public static let legal = ConsumptionRequestReason(rawValue: "LEGAL")

    /// Another reason.
    public static let other = ConsumptionRequestReason(rawValue: "OTHER")

    public static let known: [ConsumptionRequestReason] = [
        .unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other,
    ]
}
