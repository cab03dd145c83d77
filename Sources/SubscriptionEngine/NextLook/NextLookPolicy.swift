import Foundation

/// Margins for deciding when to next ask Apple about a subscription.
public struct NextLookPolicy: Sendable, Hashable, Codable {
    /// How long before a period's end to look, to catch the renewal Apple charges up to a day
    /// ahead (default one hour).
    public var beforeExpiry: TimeInterval
    /// How long after a period's end to look when the renewal was not seen before it
    /// (default ten minutes).
    public var afterExpiry: TimeInterval
    /// How often to look while a renewal Apple has not confirmed is expected (default one hour).
    public var unconfirmedRenewalInterval: TimeInterval
    /// How often to look during the billing grace period (default six hours).
    public var gracePeriodInterval: TimeInterval
    /// How often to look during billing retry (default one day).
    public var billingRetryInterval: TimeInterval
    /// The longest wait between looks at a subscription that gives access, so refunds and
    /// revocations missed by notifications are found (default seven days).
    public var maximumInterval: TimeInterval

    public init(
        beforeExpiry: TimeInterval = 3_600,
        afterExpiry: TimeInterval = 600,
        unconfirmedRenewalInterval: TimeInterval = 3_600,
        gracePeriodInterval: TimeInterval = 6 * 3_600,
        billingRetryInterval: TimeInterval = 86_400,
        maximumInterval: TimeInterval = 7 * 86_400
    ) {
        self.beforeExpiry = beforeExpiry
        self.afterExpiry = afterExpiry
        self.unconfirmedRenewalInterval = unconfirmedRenewalInterval
        self.gracePeriodInterval = gracePeriodInterval
        self.billingRetryInterval = billingRetryInterval
        self.maximumInterval = maximumInterval
    }
}
