import Foundation
import SubscriptionEngine

/// The snapshot metrics (`activeSubscriptions`, `activeTrials`, `gracePeriod`, `billingRetry`,
/// `familyShared`, `mrr`) of an app at any set of instants without replaying the ledger for
/// each: every chain's contribution is kept as runs over time (from the engine's
/// ``ChainTimeline``, classified by the same definition as ``SubscriptionAnalytics/snapshot(of:at:)``),
/// so a series is one pass over the runs. New facts about a chain replace that chain's runs
/// (``replace(chain:with:)``): a late fact about a past day changes that day and nothing else
/// is recomputed.
public struct SnapshotIndex: Sendable {
    public let analytics: SubscriptionAnalytics
    /// Per chain, oldest first: a contribution from `from` until the next run (the last for ever).
    private(set) var runs: [String: [(from: Date, part: Contribution)]] = [:]

    /// Indexes `histories` (any grouping of the app's facts; each chain's facts must be in one).
    public init(analytics: SubscriptionAnalytics, histories: [PurchaseHistory]) {
        self.analytics = analytics
        for history in histories { add(history) }
    }

    /// How many chains the index holds.
    public var chainCount: Int { runs.count }

    /// Replaces what the index knows of chain `id` with `history` (every fact of that chain).
    public mutating func replace(chain id: String, with history: PurchaseHistory) {
        runs[id] = nil
        add(history)
    }

    private mutating func add(_ history: PurchaseHistory) {
        let history = history.restricted(to: analytics.environment)
        for (id, timeline) in history.chainTimelines(catalog: analytics.catalog) {
            var chainRuns: [(from: Date, part: Contribution)] = []
            for segment in timeline.segments {
                let part = analytics.contribution(of: segment.state, in: history)
                if chainRuns.last?.part != part { chainRuns.append((segment.from, part)) }
            }
            runs[id] = chainRuns.contains { !$0.part.isEmpty } ? chainRuns : []
        }
    }

    /// The snapshots at `instants` (each as ``SubscriptionAnalytics/snapshot(of:at:)`` would
    /// answer it over the same facts).
    public func snapshots(at instants: [Date]) -> [Snapshot] {
        let order = instants.indices.sorted { instants[$0] < instants[$1] }
        let sorted = order.map { instants[$0] }
        let count = sorted.count
        var counts = [[Int]](repeating: [Int](repeating: 0, count: count + 1), count: 6)
        var money: [MoneyKey: [Int64]] = [:]
        func lowerBound(_ date: Date) -> Int {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < date { low = middle + 1 } else { high = middle }
            }
            return low
        }
        for chainRuns in runs.values {
            for (index, run) in chainRuns.enumerated() where !run.part.isEmpty {
                let low = lowerBound(run.from)
                let high = index + 1 < chainRuns.count ? lowerBound(chainRuns[index + 1].from) : count
                guard low < high else { continue }
                let part = run.part
                for (slot, flag) in [
                    part.activeSubscription, part.activeTrial, part.gracePeriod, part.billingRetry, part.familyShared, part.unpriced,
                ]
                .enumerated() where flag {
                    counts[slot][low] += 1
                    counts[slot][high] -= 1
                }
                if let recurring = part.mrr {
                    let key = MoneyKey(currency: recurring.price.currency, denominator: recurring.factor.denominator)
                    let amount = recurring.price.milliunits * recurring.factor.numerator
                    money[key, default: [Int64](repeating: 0, count: count + 1)][low] += amount
                    money[key, default: [Int64](repeating: 0, count: count + 1)][high] -= amount
                }
            }
        }
        var running = [Int](repeating: 0, count: 6)
        var runningMoney: [MoneyKey: Int64] = [:]
        var result = [Snapshot?](repeating: nil, count: count)
        for position in 0..<count {
            for slot in 0..<6 { running[slot] += counts[slot][position] }
            var sum = MoneySum()
            for (key, deltas) in money {
                let value = runningMoney[key, default: 0] + deltas[position]
                runningMoney[key] = value
                if value != 0 { sum.add(Money(milliunits: value, currency: key.currency), times: (1, key.denominator)) }
            }
            let (mrr, unconverted) = sum.total(in: analytics.configuration)
            result[order[position]] = Snapshot(
                at: sorted[position], currency: analytics.configuration.reportingCurrency, activeSubscriptions: running[0],
                activeTrials: running[1], gracePeriod: running[2], billingRetry: running[3], familyShared: running[4], mrr: mrr,
                unconverted: unconverted, unpriced: running[5])
        }
        return result.compactMap { $0 }
    }

    struct MoneyKey: Hashable {
        var currency: String
        var denominator: Int64
    }
}
