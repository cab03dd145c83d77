import Foundation
import SubscriptionEngine

/// How subscribers moved in an interval `[start, end)`.
///
/// | metric | what counts | dated by |
/// |---|---|---|
/// | `newTrials` | chains whose first period is a free trial | the trial's start |
/// | `newSubscriptions` | chains' first paid period (trial conversions included) | its start |
/// | `trialConversions` | first paid periods of chains that began with a free trial | its start |
/// | `renewals` | later paid periods that start when the one before ended or after (an upgrade or crossgrade starting inside a period is not a renewal) | their start |
/// | `churnedSubscriptions` | purchaser-owned chains in a paid period whose access ended: expired, revoked or in billing retry at `end` | the end of access |
/// | `churnRate` | `churnedSubscriptions` ÷ `activeSubscriptions` at `start` (absent when none were active) | — |
/// | `billingIssues` | renewals Apple could not charge: a period's expiry after which Apple said it was retrying | the renewal date |
/// | `billingRecoveries` | those Apple charged later, in the grace period or the retry (a next period began before Apple said it stopped) | the start of the recovered period (a grace recovery keeps the renewal date) |
public struct SubscriberFlows: Sendable, Hashable {
    public var start: Date
    public var end: Date
    public var newTrials: Int
    public var newSubscriptions: Int
    public var trialConversions: Int
    public var renewals: Int
    public var churnedSubscriptions: Int
    public var churnRate: Decimal?
    public var billingIssues: Int
    public var billingRecoveries: Int
}

extension SubscriptionAnalytics {
    /// The subscriber flows of `[start, end)` over `history` (every fact of the app).
    public func flows(of history: PurchaseHistory, from start: Date, to end: Date) -> SubscriberFlows {
        let history = history.restricted(to: environment)
        var flows = SubscriberFlows(
            start: start, end: end, newTrials: 0, newSubscriptions: 0, trialConversions: 0, renewals: 0, churnedSubscriptions: 0,
            churnRate: nil, billingIssues: 0, billingRecoveries: 0)
        let interval = start..<end
        let chains = Dictionary(grouping: history.effectivePurchases.filter { isOwnedSubscription($0) }, by: \.originalTransactionId)
        for periods in chains.values {
            let sorted = periods.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
            let startsWithTrial = sorted.first?.offer?.kind == .freeTrial
            if startsWithTrial, let trial = sorted.first, interval.contains(trial.purchaseDate) { flows.newTrials += 1 }
            if let firstPaid = sorted.firstIndex(where: { $0.offer?.kind != .freeTrial }), interval.contains(sorted[firstPaid].purchaseDate) {
                flows.newSubscriptions += 1
                if startsWithTrial { flows.trialConversions += 1 }
            }
            countBilling(sorted, timeline: history.renewalTimeline[sorted[0].originalTransactionId] ?? [], in: interval, into: &flows)
            guard let firstPaid = sorted.firstIndex(where: { $0.offer?.kind != .freeTrial }) else { continue }
            for index in sorted.indices.dropFirst(firstPaid + 1) where interval.contains(sorted[index].purchaseDate) {
                let previousEnd = sorted[index - 1].expiresDate ?? .distantPast
                if sorted[index].purchaseDate >= previousEnd.addingTimeInterval(-60), sorted[index].offer?.kind != .freeTrial {
                    flows.renewals += 1
                }
            }
        }
        let state = CustomerState(history: history, catalog: catalog, at: end)
        for subscription in state.subscriptions where subscription.ownership == .purchased && subscription.offer?.kind != .freeTrial {
            guard [.expired, .revoked, .billingRetry].contains(subscription.status),
                let ended = subscription.accessEndsDate ?? subscription.expiresDate, interval.contains(ended)
            else { continue }
            flows.churnedSubscriptions += 1
        }
        let active = snapshot(of: history, at: start).activeSubscriptions
        if active > 0 { flows.churnRate = Decimal(flows.churnedSubscriptions) / Decimal(active) }
        return flows
    }

    /// The failed renewals of one chain (oldest period first) and their recoveries: after each
    /// period's expiry, the first renewal fact saying Apple is retrying (signed before the next
    /// period's expiry) is a billing issue; it recovered when a next period began before any
    /// later fact said Apple stopped retrying.
    func countBilling(_ periods: [PurchaseFact], timeline: [RenewalFact], in interval: Range<Date>, into flows: inout SubscriberFlows) {
        guard !timeline.isEmpty else { return }
        for (index, period) in periods.enumerated() {
            guard let due = period.expiresDate, period.revocation == nil || period.revocation?.removesAccess == false, !period.isUpgraded else {
                continue
            }
            let next = periods[(index + 1)...].first { $0.purchaseDate >= due.addingTimeInterval(-1) }
            let windowEnd = next?.expiresDate ?? .distantFuture
            guard
                let failure = timeline.first(where: { fact in
                    fact.isInBillingRetry == true && (fact.signedDate.map { $0 >= due && $0 < windowEnd } ?? false)
                }), let failed = failure.signedDate
            else { continue }
            if interval.contains(due) { flows.billingIssues += 1 }
            guard let next else { continue }
            let stopped = timeline.contains { fact in
                fact.isInBillingRetry == false && (fact.signedDate.map { $0 > failed && $0 < next.purchaseDate } ?? false)
            }
            if !stopped, interval.contains(next.purchaseDate) { flows.billingRecoveries += 1 }
        }
    }

    /// A purchaser-owned period of an auto-renewable subscription.
    func isOwnedSubscription(_ purchase: PurchaseFact) -> Bool {
        purchase.ownership == .purchased
            && (purchase.productType ?? catalog.product(purchase.productId)?.type ?? (purchase.expiresDate != nil ? .autoRenewable : nil))
                == .autoRenewable
    }
}
