/// A new billing period for an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionModifyPeriodChange: Codable, Hashable, Sendable {
    /// When the change takes effect.
    public var effective: AdvancedCommerceEffective

    /// The new billing period.
    public var period: AdvancedCommercePeriod

    /// Creates a value from its fields; optional fields default to absent.
    public init(effective: AdvancedCommerceEffective, period: AdvancedCommercePeriod) {
        self.effective = effective
        self.period = period
    }
}
