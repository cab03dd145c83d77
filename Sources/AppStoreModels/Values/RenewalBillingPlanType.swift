/// How a subscription with a commitment will be billed at its next renewal (`renewalBillingPlanType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RenewalBillingPlanType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The whole commitment is billed at once.
    public static let billedUpfront = RenewalBillingPlanType(rawValue: "BILLED_UPFRONT")

    /// Billed monthly over a 12-month commitment.
    public static let monthly = RenewalBillingPlanType(rawValue: "MONTHLY")

    public static let known: [RenewalBillingPlanType] = [
        .billedUpfront, .monthly,
    ]
}
