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
        replace(chain: id, with: Self.runs(of: history, analytics: analytics))
    }

    /// Replaces what the index knows of chain `id` with `runs`, computed apart (``runs(of:analytics:)``).
    public mutating func replace(chain id: String, with runs: ChainRuns) {
        self.runs[id] = nil
        for (chain, chainRuns) in runs.chains { self.runs[chain] = chainRuns }
    }

    /// What a history adds to an index of `analytics`: pure computation, so a rebuild can
    /// compute many chains at once on several threads and add them one after the other.
    public struct ChainRuns: Sendable {
        var chains: [(String, [(from: Date, part: Contribution)])]
    }

    /// The runs `history` (every fact of its chains) contributes to an index of `analytics`.
    public static func runs(of history: PurchaseHistory, analytics: SubscriptionAnalytics) -> ChainRuns {
        let history = history.restricted(to: analytics.environment)
        var result = ChainRuns(chains: [])
        for (id, timeline) in history.chainTimelines(catalog: analytics.catalog) {
            var chainRuns: [(from: Date, part: Contribution)] = []
            for segment in timeline.segments {
                let part = analytics.contribution(of: segment.state, in: history)
                if chainRuns.last?.part != part { chainRuns.append((segment.from, part)) }
            }
            result.chains.append((id, chainRuns.contains { !$0.part.isEmpty } ? chainRuns : []))
        }
        return result
    }

    /// The runs of each chain's history, computed in as many tasks as there are cores (for at
    /// least 100 chains each), in the order given. Each task leaves the threads to other work
    /// every 100 chains.
    public static func runs(
        of histories: [(chain: String, history: PurchaseHistory)], analytics: SubscriptionAnalytics
    ) async -> [(
        chain: String, runs: ChainRuns
    )] {
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, histories.count / 100))
        let size = max(1, (histories.count + parts - 1) / parts)
        return await withTaskGroup(of: (Int, [(chain: String, runs: ChainRuns)]).self) { group in
            for (number, first) in stride(from: 0, to: histories.count, by: size).enumerated() {
                let part = Array(histories[first..<min(first + size, histories.count)])
                group.addTask {
                    var computed: [(chain: String, runs: ChainRuns)] = []
                    computed.reserveCapacity(part.count)
                    for (position, (chain, history)) in part.enumerated() {
                        computed.append((chain, runs(of: history, analytics: analytics)))
                        if position % 100 == 99 { await Task.yield() }
                    }
                    return (number, computed)
                }
            }
            var parts: [(Int, [(chain: String, runs: ChainRuns)])] = []
            for await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    private mutating func add(_ history: PurchaseHistory) {
        for (chain, chainRuns) in Self.runs(of: history, analytics: analytics).chains { runs[chain] = chainRuns }
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
                    let factor = MoneySum.lowestTerms(recurring.factor)
                    let key = MoneyKey(currency: recurring.price.currency, denominator: factor.denominator)
                    let amount = recurring.price.milliunits * factor.numerator
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
