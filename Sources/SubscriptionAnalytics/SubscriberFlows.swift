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
/// | `churnedSubscriptions` | purchaser-owned chains in a paid period whose access ended: expired, revoked or in billing retry at `end` (now, for the interval under way) | the end of access |
/// | `churnRate` | `churnedSubscriptions` ÷ `activeSubscriptions` at `start` (absent when none were active) | — |
/// | `billingIssues` | renewals Apple could not charge: a period's expiry after which Apple said it was retrying | the renewal date |
/// | `billingRecoveries` | those Apple charged later, in the grace period or the retry (a next period began before Apple said it stopped) | the start of the recovered period (a grace recovery keeps the renewal date) |
///
/// An interval that contains now is evaluated up to now: only what is dated at or before now
/// counts, and churn is a state at now rather than at the interval's future end (a period that
/// ends later in the interval and is due to renew is not churn). An interval that begins after
/// now has none of these yet.
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
    /// The subscriber flows of `[start, end)` over `history` (every fact of the app), up to `now`.
    public func flows(of history: PurchaseHistory, from start: Date, to end: Date, now: Date) -> SubscriberFlows {
        flowSeries(of: history, over: [DateInterval(start: start, end: max(start, end))], now: now)[0]
    }

    /// The subscriber flows of each of `intervals` (sorted, not overlapping) over `history`, in
    /// one pass over its chains: every event dated at or before `now` falls in the interval of its
    /// date; a chain churns in the interval its access ended in when its state at that interval's
    /// end, or at `now` for the interval under way, says so. `churnRate` is left out (nil) unless
    /// asked for: it needs the snapshots at every start.
    public func flowSeries(of history: PurchaseHistory, over intervals: [DateInterval], now: Date, churnRate: Bool = true) -> [SubscriberFlows] {
        let history = history.restricted(to: environment)
        var series = intervals.map {
            SubscriberFlows(
                start: $0.start, end: $0.end, newTrials: 0, newSubscriptions: 0, trialConversions: 0, renewals: 0, churnedSubscriptions: 0,
                churnRate: nil, billingIssues: 0, billingRecoveries: 0)
        }
        let rows = flowRows(of: history)
        for item in rows.items where item.at <= now {
            guard let index = intervals.position(of: item.at) else { continue }
            series[index].add(item.kind)
        }
        for span in rows.churn where span.ended <= now {
            guard let index = intervals.position(of: span.ended), span.counts(in: intervals[index], now: now) else { continue }
            series[index].churnedSubscriptions += 1
        }
        guard churnRate else { return series }
        let index = SnapshotIndex(analytics: self, histories: [history])
        for (position, snapshot) in index.snapshots(at: intervals.map(\.start)).enumerated()
        where snapshot.activeSubscriptions > 0 && intervals[position].start <= now {
            series[position].churnRate = Decimal(series[position].churnedSubscriptions) / Decimal(snapshot.activeSubscriptions)
        }
        return series
    }

    /// The dated flows of `history` (restricted to the environment already), each chain's
    /// purchaser-owned periods in turn, and the paid states without access that may be churn:
    /// the rows ``flowSeries(of:over:now:churnRate:)`` sums.
    func flowRows(of history: PurchaseHistory) -> (items: [FigureItem], churn: [ChurnSpan]) {
        var items: [FigureItem] = []
        func add(_ kind: FlowKind, _ date: Date) { items.append(FigureItem(group: "", kind: kind, at: date)) }
        let chains = Dictionary(grouping: history.effectivePurchases.filter { isOwnedSubscription($0) }, by: \.originalTransactionId)
        for periods in chains.values {
            let sorted = periods.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
            let startsWithTrial = sorted.first?.offer?.kind == .freeTrial
            if startsWithTrial, let trial = sorted.first { add(.newTrial, trial.purchaseDate) }
            let billing = billingDates(sorted, timeline: history.renewalTimeline[sorted[0].originalTransactionId] ?? [])
            for date in billing.issues { add(.billingIssue, date) }
            for date in billing.recoveries { add(.billingRecovery, date) }
            guard let firstPaid = sorted.firstIndex(where: { $0.offer?.kind != .freeTrial }) else { continue }
            add(.newSubscription, sorted[firstPaid].purchaseDate)
            if startsWithTrial { add(.trialConversion, sorted[firstPaid].purchaseDate) }
            for position in sorted.indices.dropFirst(firstPaid + 1) {
                let previousEnd = sorted[position - 1].expiresDate ?? .distantPast
                guard sorted[position].purchaseDate >= previousEnd.addingTimeInterval(-60), sorted[position].offer?.kind != .freeTrial
                else { continue }
                add(.renewal, sorted[position].purchaseDate)
            }
        }
        // Churn: a paid state with no access, with when its access ended and the segment it
        // holds over (each state segment is looked at once).
        var churn: [ChurnSpan] = []
        for timeline in history.chainTimelines(catalog: catalog).values {
            for (position, segment) in timeline.segments.enumerated() {
                let state = segment.state
                guard state.ownership == .purchased, state.offer?.kind != .freeTrial, [.expired, .revoked, .billingRetry].contains(state.status),
                    let ended = state.accessEndsDate ?? state.expiresDate
                else { continue }
                let until = position + 1 < timeline.segments.count ? timeline.segments[position + 1].from : nil
                churn.append(ChurnSpan(group: "", ended: ended, from: segment.from, until: until))
            }
        }
        return (items, churn)
    }

    /// The failed renewals of one chain (oldest period first) and their recoveries, as dates: after
    /// each period's expiry, the first renewal fact saying Apple is retrying (signed before the
    /// next period's expiry) is a billing issue, dated by the renewal date; it recovered when a
    /// next period began before any later fact said Apple stopped retrying, dated by that
    /// period's start.
    func billingDates(_ periods: [PurchaseFact], timeline: [RenewalFact]) -> (issues: [Date], recoveries: [Date]) {
        var issues: [Date] = []
        var recoveries: [Date] = []
        guard !timeline.isEmpty else { return (issues, recoveries) }
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
            issues.append(due)
            guard let next else { continue }
            let stopped = timeline.contains { fact in
                fact.isInBillingRetry == false && (fact.signedDate.map { $0 > failed && $0 < next.purchaseDate } ?? false)
            }
            if !stopped { recoveries.append(next.purchaseDate) }
        }
        return (issues, recoveries)
    }

    /// A purchaser-owned period of an auto-renewable subscription.
    func isOwnedSubscription(_ purchase: PurchaseFact) -> Bool {
        purchase.ownership == .purchased
            && (purchase.productType ?? catalog.product(purchase.productId)?.type ?? (purchase.expiresDate != nil ? .autoRenewable : nil))
                == .autoRenewable
    }
}

extension SubscriberFlows {
    /// Counts one flow item (money items count elsewhere).
    mutating func add(_ kind: FlowKind, count: Int = 1) {
        switch kind {
        case .newTrial: newTrials += count
        case .newSubscription: newSubscriptions += count
        case .trialConversion: trialConversions += count
        case .renewal: renewals += count
        case .billingIssue: billingIssues += count
        case .billingRecovery: billingRecoveries += count
        case .sale, .refund, .cohortMember: break
        }
    }
}
