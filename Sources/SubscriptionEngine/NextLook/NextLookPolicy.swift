import Foundation

/// Margins for deciding when to next ask Apple about a subscription.
///
/// Apple notifies every change a subscription goes through (a renewal, a failed charge, the end
/// of a grace period or of billing retry, an expiry, a refund), and its notification history
/// keeps every notification it could not deliver. So by default a look is planned only at the
/// instant such a notification is due, and the server asks Apple then only if neither the
/// notifications nor the history swept past that instant show it. The intervals below add
/// polling on top, for apps that want it; each is off (`nil`) by default.
public struct NextLookPolicy: Sendable, Hashable, Codable {
    /// How long before a period's end to look, to catch a renewal Apple charges up to a day
    /// ahead; `nil` (the default) looks only after the end, when the renewal's notification
    /// is due.
    public var beforeExpiry: TimeInterval?
    /// How long after a period's end (or the end of a grace period or of billing retry) the
    /// notification of what happened is due (default ten minutes).
    public var afterExpiry: TimeInterval
    /// How often to look again while a renewal Apple has not confirmed is still possible, after
    /// a look found nothing (default six hours).
    public var unconfirmedRenewalInterval: TimeInterval
    /// How often to look during the billing grace period; `nil` (the default) looks once, when
    /// it ends.
    public var gracePeriodInterval: TimeInterval?
    /// How often to look during billing retry; `nil` (the default) looks once, when Apple's
    /// retry window closes.
    public var billingRetryInterval: TimeInterval?
    /// The longest wait between looks at a subscription that gives access; `nil` (the default)
    /// for no limit: refunds and revocations come as notifications, and the notification
    /// history sweeps recover the ones that were lost.
    public var maximumInterval: TimeInterval?

    public init(
        beforeExpiry: TimeInterval? = nil,
        afterExpiry: TimeInterval = 600,
        unconfirmedRenewalInterval: TimeInterval = 6 * 3_600,
        gracePeriodInterval: TimeInterval? = nil,
        billingRetryInterval: TimeInterval? = nil,
        maximumInterval: TimeInterval? = nil
    ) {
        self.beforeExpiry = beforeExpiry
        self.afterExpiry = afterExpiry
        self.unconfirmedRenewalInterval = unconfirmedRenewalInterval
        self.gracePeriodInterval = gracePeriodInterval
        self.billingRetryInterval = billingRetryInterval
        self.maximumInterval = maximumInterval
    }
}
