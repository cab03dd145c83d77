/// Why an entitlement is granted.
public enum EntitlementBasis: String, Sendable, Hashable, Codable, CaseIterable {
    /// A paid or offered period, a non-renewing run or a non-consumable covers the instant.
    case purchase
    /// Billing failed but Apple's billing grace period keeps access.
    case gracePeriod
    /// A renewal Apple has not confirmed yet is expected; kept by the offline allowance.
    case offlineAllowance
}
