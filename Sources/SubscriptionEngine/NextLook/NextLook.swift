import Foundation

/// When Storekeeper should next ask Apple about a subscription, and why.
public struct NextLook: Sendable, Hashable, Codable {
    /// The instant to look; `nil` for never (Apple will not change the state on its own).
    public var date: Date?
    /// Why then.
    public var reason: Reason

    public init(date: Date?, reason: Reason) {
        self.date = date
        self.reason = reason
    }

    /// Why a look is due.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// Shortly before the period ends, to see the renewal (only when the policy asks for it).
        case beforeExpiry
        /// The period ended: Apple's notification of what happened (a renewal, a failed charge,
        /// an expiry) is due.
        case periodEnd
        /// The period ended and Apple has not confirmed the renewal yet.
        case unconfirmedRenewal
        /// In the billing grace period: at its end, or polled when the policy asks for it.
        case gracePeriod
        /// In billing retry: when Apple's retry window closes, or polled when the policy asks for it.
        case billingRetry
        /// A periodic check of a long period (only when the policy sets a maximum interval).
        case periodicCheck
        /// The subscription ended for good (voluntary, billing retry over, revoked, price
        /// increase refused, product gone): only the customer can change it, and notifications
        /// or the app will say so.
        case never
    }

    /// The next look for `state` at `instant`: a pure function of the two and the policy.
    ///
    /// By default every look is at an instant when Apple owes a notification (the end of a
    /// period, of a grace period, of billing retry), plus the policy's `afterExpiry` margin:
    /// whoever acts on it asks Apple only when no notification (delivered, or recovered from the
    /// notification history) has changed the state by then.
    public init(for state: SubscriptionState, at instant: Date, configuration: EngineConfiguration = EngineConfiguration()) {
        let policy = configuration.nextLook
        let cap = policy.maximumInterval.map { instant.addingTimeInterval($0) } ?? .distantFuture
        func capped(_ date: Date, _ reason: Reason) -> NextLook {
            date > cap ? NextLook(date: cap, reason: .periodicCheck) : NextLook(date: max(date, instant), reason: reason)
        }
        func polled(_ interval: TimeInterval?, until end: Date, _ reason: Reason) -> NextLook {
            capped(min(interval.map { instant.addingTimeInterval($0) } ?? end, end), reason)
        }
        let end = state.accessEndsDate ?? state.expiresDate ?? instant
        switch state.status {
        case .active:
            if state.willAutoRenew != false, let margin = policy.beforeExpiry, end.addingTimeInterval(-margin) > instant {
                self = capped(end.addingTimeInterval(-margin), .beforeExpiry)
            } else {
                self = capped(end.addingTimeInterval(policy.afterExpiry), .periodEnd)
            }
        case .gracePeriod:
            let graceEnd = state.gracePeriodExpiresDate ?? end
            self = polled(policy.gracePeriodInterval, until: graceEnd.addingTimeInterval(policy.afterExpiry), .gracePeriod)
        case .billingRetry:
            let retryEnd = (state.expiresDate ?? end).addingTimeInterval(configuration.billingRetryLimit)
            self = polled(policy.billingRetryInterval, until: retryEnd.addingTimeInterval(policy.afterExpiry), .billingRetry)
        case .expired:
            let lastChance = (state.expiresDate ?? end).addingTimeInterval(configuration.billingRetryLimit)
            if state.expirationReason == nil, state.willAutoRenew != false, instant < lastChance {
                self = capped(instant.addingTimeInterval(policy.unconfirmedRenewalInterval), .unconfirmedRenewal)
            } else {
                self = NextLook(date: nil, reason: .never)
            }
        case .revoked:
            self = NextLook(date: nil, reason: .never)
        }
    }
}
