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
        /// Shortly before the period ends, to see the renewal.
        case beforeExpiry
        /// The period ended and Apple has not confirmed the renewal yet.
        case unconfirmedRenewal
        /// In the billing grace period.
        case gracePeriod
        /// In billing retry.
        case billingRetry
        /// A periodic check of a long period, for missed refunds and revocations.
        case periodicCheck
        /// The subscription ended for good (voluntary, billing retry over, revoked, price
        /// increase refused, product gone): only the customer can change it, and notifications
        /// or the app will say so.
        case never
    }

    /// The next look for `state` at `instant`: a pure function of the two and the policy.
    public init(for state: SubscriptionState, at instant: Date, configuration: EngineConfiguration = EngineConfiguration()) {
        let policy = configuration.nextLook
        let cap = instant.addingTimeInterval(policy.maximumInterval)
        func capped(_ date: Date, _ reason: Reason) -> NextLook {
            date > cap ? NextLook(date: cap, reason: .periodicCheck) : NextLook(date: max(date, instant), reason: reason)
        }
        let end = state.accessEndsDate ?? state.expiresDate ?? instant
        switch state.status {
        case .active:
            if state.willAutoRenew == false {
                self = capped(end, .beforeExpiry)
                return
            }
            let before = end.addingTimeInterval(-policy.beforeExpiry)
            if before > instant {
                self = capped(before, .beforeExpiry)
            } else {
                self = capped(end.addingTimeInterval(policy.afterExpiry), .unconfirmedRenewal)
            }
        case .gracePeriod:
            let graceEnd = state.gracePeriodExpiresDate ?? end
            self = capped(min(instant.addingTimeInterval(policy.gracePeriodInterval), graceEnd), .gracePeriod)
        case .billingRetry:
            self = capped(instant.addingTimeInterval(policy.billingRetryInterval), .billingRetry)
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
