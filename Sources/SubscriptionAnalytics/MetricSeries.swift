import Foundation
import SubscriptionEngine

/// The metrics a series can be asked for, each a snapshot (its value at every interval's end)
/// or a flow (summed over `[start, end)`).
///
/// The interval that contains now is read up to now: a snapshot is the state now (not at the
/// interval's end, which is still to come) and a flow counts what is dated at or before now.
/// An interval that begins after now has no snapshot value (`null`) and flows of nothing.
public enum MetricName: String, Sendable, Hashable, CaseIterable, Codable {
    case activeSubscriptions, activeTrials, gracePeriod, billingRetry, familyShared, mrr
    case revenue, proceeds, refunds, refundAmount, netRevenue
    case newTrials, newSubscriptions, trialConversions, renewals, churnedSubscriptions, churnRate
    case billingIssues, billingRecoveries

    /// Whether the metric is a state at each interval's end (rather than a flow over it).
    public var isSnapshot: Bool { [.activeSubscriptions, .activeTrials, .gracePeriod, .billingRetry, .familyShared, .mrr].contains(self) }
}

/// What a series is broken down by: the product, the storefront (country) or the offer of each
/// period (`none`, `freeTrial`, `introductory`, `promotional`, `offerCode`, `winBack`, `retention`,
/// `unknown`: ``OfferKind``).
public enum Breakdown: String, Sendable, Hashable, CaseIterable, Codable {
    case product, storefront, offer

    /// The group a period falls in.
    func key(of purchase: PurchaseFact) -> String {
        switch self {
        case .product: purchase.productId
        case .storefront: purchase.storefront ?? "unknown"
        case .offer: purchase.offer.map(\.kind.rawValue) ?? "none"
        }
    }
}

/// One point of a series: the interval and the metric's value (money in the reporting
/// currency, rounded to the cent; counts as whole numbers; `churnRate` a fraction, absent when
/// nothing was active at the interval's start; a snapshot or `churnRate` absent for an interval
/// that begins after now).
public struct MetricPoint: Sendable, Hashable {
    public var start: Date
    public var end: Date
    public var value: Decimal?
    /// Money in currencies without an exchange rate, for money metrics.
    public var unconverted: [String: Decimal]
}

extension SubscriptionAnalytics {
    /// `metric` over `intervals`, for the facts of `histories` (one per customer), as known at
    /// `now`. A snapshot metric is read from `index` when given (it must hold the same facts),
    /// else from an index built for the call.
    public func series(
        _ metric: MetricName, of histories: [PurchaseHistory], over intervals: [DateInterval], now: Date, index: SnapshotIndex? = nil
    ) -> [MetricPoint] {
        if metric.isSnapshot {
            let index = index ?? SnapshotIndex(analytics: self, histories: histories)
            // The state at each interval's end (the last instant inside it), or now for the one
            // under way.
            let snapshots = index.snapshots(at: intervals.map { min($0.end.addingTimeInterval(-0.001), now) })
            return zip(intervals, snapshots).map { interval, snapshot in
                var point = MetricPoint(start: interval.start, end: interval.end, value: nil, unconverted: [:])
                guard interval.start <= now else { return point }
                switch metric {
                case .activeSubscriptions: point.value = Decimal(snapshot.activeSubscriptions)
                case .activeTrials: point.value = Decimal(snapshot.activeTrials)
                case .gracePeriod: point.value = Decimal(snapshot.gracePeriod)
                case .billingRetry: point.value = Decimal(snapshot.billingRetry)
                case .familyShared: point.value = Decimal(snapshot.familyShared)
                default: (point.value, point.unconverted) = (snapshot.mrr, snapshot.unconverted)
                }
                return point
            }
        }
        func point(_ interval: DateInterval, _ value: Decimal?, _ unconverted: [String: Decimal] = [:]) -> MetricPoint {
            MetricPoint(start: interval.start, end: interval.end, value: value, unconverted: unconverted)
        }
        switch metric {
        case .revenue, .proceeds, .refunds, .refundAmount, .netRevenue:
            let sums = moneySeries(of: histories, over: intervals, now: now)
            return zip(intervals, sums).map { $1.point(metric, $0, configuration) }
        default:
            var all = PurchaseHistory()
            for history in histories { all.add(history) }
            return zip(intervals, flowSeries(of: all, over: intervals, now: now, churnRate: metric == .churnRate)).map { interval, flows in
                switch metric {
                case .newTrials: point(interval, Decimal(flows.newTrials))
                case .newSubscriptions: point(interval, Decimal(flows.newSubscriptions))
                case .trialConversions: point(interval, Decimal(flows.trialConversions))
                case .renewals: point(interval, Decimal(flows.renewals))
                case .churnedSubscriptions: point(interval, Decimal(flows.churnedSubscriptions))
                case .billingIssues: point(interval, Decimal(flows.billingIssues))
                case .billingRecoveries: point(interval, Decimal(flows.billingRecoveries))
                default: point(interval, flows.churnRate)
                }
            }
        }
    }

    /// `metric` over `intervals` per group of `breakdown`, as known at `now`: each group's series
    /// computed over the periods that fall in it.
    public func series(
        _ metric: MetricName, of histories: [PurchaseHistory], over intervals: [DateInterval], now: Date, by breakdown: Breakdown
    ) -> [String: [MetricPoint]] {
        var keys = Set<String>()
        for history in histories { keys.formUnion(history.purchases.values.map(breakdown.key(of:))) }
        var groups: [String: [MetricPoint]] = [:]
        for key in keys.sorted() {
            let restricted = histories.map { $0.restricted { breakdown.key(of: $0) == key } }
            groups[key] = series(metric, of: restricted, over: intervals, now: now)
        }
        return groups
    }
}
