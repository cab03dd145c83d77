/// How a subscription with a commitment is billed (`billingPlanType`, API 1.21).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct BillingPlanType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The whole commitment is billed at once.
    public static let billedUpfront = BillingPlanType(rawValue: "BILLED_UPFRONT")

    /// Billed monthly over a 12-month commitment.
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")

    public static let known: [BillingPlanType] = [
        .billedUpfront, .monthly,
    ]
}
