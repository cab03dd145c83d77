import Foundation
import SubscriptionEngine

/// The sums of chain figures (``ChainFigures``) that every figure is composed from: what a store
/// of the rows answers (in memory, ``FigureBook``; in a database, from its daily rollups), each
/// in proportion to what is asked (instants, intervals, groups), never to the ledger.
public protocol FigureSums: Sendable {
    /// The sum of the runs of `group` that cover each instant.
    func snapshotSums(group: String, at instants: [Date]) async throws -> [SnapshotSums]
    /// The sum of the items of `group` dated in each interval (sorted, not overlapping) at or
    /// before `now`: the count of every kind, and at least the sums of `money` (the others may
    /// be left empty).
    func itemSums(group: String, over intervals: [DateInterval], now: Date, money: ItemMoney) async throws -> [ItemSums]
    /// How many churn rows of `group` count in each interval (sorted, not overlapping) as known
    /// at `now` (``ChurnSpan/counts(in:now:)``, in the interval containing their end of access).
    func churned(group: String, over intervals: [DateInterval], now: Date) async throws -> [Int]
    /// The groups of `breakdown` that have rows.
    func groups(of breakdown: Breakdown) async throws -> [String]
}

extension FigureSums {
    /// The sum of the items of `group` in each interval, every sum of money included.
    public func itemSums(group: String, over intervals: [DateInterval], now: Date) async throws -> [ItemSums] {
        try await itemSums(group: group, over: intervals, now: now, money: .all)
    }
}

/// The sums of money of ``ItemSums`` a question reads: a series of money has a cell per
/// currency and price a day, where a count has one.
public struct ItemMoney: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let revenue = ItemMoney(rawValue: 1)
    public static let proceeds = ItemMoney(rawValue: 2)
    public static let refunded = ItemMoney(rawValue: 4)
    public static let all: ItemMoney = [.revenue, .proceeds, .refunded]

    /// What the points of `metric` read.
    public init(reading metric: MetricName) {
        switch metric {
        case .revenue: self = .revenue
        case .proceeds: self = .proceeds
        case .refundAmount: self = .refunded
        case .netRevenue: self = [.revenue, .refunded]
        default: self = []
        }
    }
}

/// Runs summed at one instant: a count per ``SnapshotSlots`` slot and the MRR.
public struct SnapshotSums: Sendable, Hashable {
    /// In the order of ``SnapshotSlots/ordered``.
    public var counts: [Int]
    public var mrr: MoneySum

    public init(counts: [Int] = [Int](repeating: 0, count: SnapshotSlots.ordered.count), mrr: MoneySum = MoneySum()) {
        self.counts = counts
        self.mrr = mrr
    }

    public mutating func add(_ run: FigureRun, sign: Int = 1) {
        for (slot, flag) in SnapshotSlots.ordered.enumerated() where run.slots.contains(flag) { counts[slot] += sign }
        if let mrr = run.mrr {
            var part = mrr
            part.amount *= Int64(sign)
            self.mrr.add(part)
        }
    }

    /// The snapshot these sums make at `instant` in `configuration`'s reporting currency.
    public func snapshot(at instant: Date, configuration: AnalyticsConfiguration) -> Snapshot {
        let (mrr, unconverted) = self.mrr.total(in: configuration)
        return Snapshot(
            at: instant, currency: configuration.reportingCurrency, activeSubscriptions: counts[0], activeTrials: counts[1],
            gracePeriod: counts[2], billingRetry: counts[3], familyShared: counts[4], mrr: mrr, unconverted: unconverted, unpriced: counts[5])
    }
}

/// Items summed over one interval: a count per kind, and the money of sales and refunds.
public struct ItemSums: Sendable, Hashable {
    public var counts: [FlowKind: Int] = [:]
    public var revenue = MoneySum()
    public var proceeds = MoneySum()
    public var refunded = MoneySum()

    public init() {}

    public mutating func add(_ item: FigureItem) {
        counts[item.kind, default: 0] += 1
        switch item.kind {
        case .sale:
            if let money = item.money { revenue.add(money) }
            if let proceeds = item.proceeds { self.proceeds.add(proceeds) }
        case .refund:
            if let money = item.money { refunded.add(money) }
        default:
            break
        }
    }

    var money: MoneySums {
        MoneySums(sales: counts[.sale] ?? 0, revenue: revenue, proceeds: proceeds, refunds: counts[.refund] ?? 0, refunded: refunded)
    }
}

/// Chain figures kept in memory, by chain: the reference store of rows (tests, the in-memory
/// store) and the replay's own sums.
public struct FigureBook: FigureSums {
    public private(set) var chains: [String: ChainFigures] = [:]

    public init(chains: [String: ChainFigures] = [:]) {
        self.chains = chains
    }

    /// Replaces chain `id`'s rows.
    public mutating func replace(chain id: String, with figures: ChainFigures) {
        chains[id] = figures.runs.isEmpty && figures.items.isEmpty && figures.churn.isEmpty ? nil : figures
    }

    public func snapshotSums(group: String, at instants: [Date]) -> [SnapshotSums] {
        var result = [SnapshotSums](repeating: SnapshotSums(), count: instants.count)
        for figures in chains.values {
            for run in figures.runs where run.group == group {
                for (position, instant) in instants.enumerated() where run.covers(instant) { result[position].add(run) }
            }
        }
        return result
    }

    public func itemSums(group: String, over intervals: [DateInterval], now: Date, money: ItemMoney) -> [ItemSums] {
        var result = [ItemSums](repeating: ItemSums(), count: intervals.count)
        for figures in chains.values {
            for item in figures.items where item.group == group && item.at <= now {
                if let position = intervals.position(of: item.at) { result[position].add(item) }
            }
        }
        return result
    }

    public func churned(group: String, over intervals: [DateInterval], now: Date) -> [Int] {
        var result = [Int](repeating: 0, count: intervals.count)
        for figures in chains.values {
            for span in figures.churn where span.group == group {
                if let position = intervals.position(of: span.ended), span.counts(in: intervals[position], now: now) { result[position] += 1 }
            }
        }
        return result
    }

    public func groups(of breakdown: Breakdown) -> [String] {
        let prefix = breakdown.rawValue + "="
        var groups = Set<String>()
        for figures in chains.values {
            for run in figures.runs where run.group.hasPrefix(prefix) { groups.insert(run.group) }
            for item in figures.items where item.group.hasPrefix(prefix) { groups.insert(item.group) }
            for span in figures.churn where span.group.hasPrefix(prefix) { groups.insert(span.group) }
        }
        return groups.sorted()
    }
}

extension SubscriptionAnalytics {
    /// `metric` over `intervals` for `group` (`""`: the whole app) as known at `now`, from the
    /// sums of maintained chain figures: the same answer as the replay over the same facts.
    public func series(
        _ metric: MetricName, group: String = "", over intervals: [DateInterval], now: Date, from sums: some FigureSums
    )
        async throws -> [MetricPoint]
    {
        func point(_ interval: DateInterval, _ value: Decimal?, _ unconverted: [String: Decimal] = [:]) -> MetricPoint {
            MetricPoint(start: interval.start, end: interval.end, value: value, unconverted: unconverted)
        }
        if metric.isSnapshot {
            let instants = intervals.map { min($0.end.addingTimeInterval(-0.001), now) }
            let snapshots = try await sums.snapshotSums(group: group, at: instants).enumerated().map {
                $1.snapshot(at: instants[$0], configuration: configuration)
            }
            return zip(intervals, snapshots).map { interval, snapshot in
                guard interval.start <= now else { return point(interval, nil) }
                return MetricPoint(interval, snapshot, metric)
            }
        }
        // Churn is counted from its own rows, not the items.
        let churn = [MetricName.churnedSubscriptions, .churnRate].contains(metric)
        let items = churn ? [] : try await sums.itemSums(group: group, over: intervals, now: now, money: ItemMoney(reading: metric))
        switch metric {
        case .revenue, .proceeds, .refunds, .refundAmount, .netRevenue:
            return zip(intervals, items).map { $1.money.point(metric, $0, configuration) }
        default:
            var churned = [Int](repeating: 0, count: intervals.count)
            if churn { churned = try await sums.churned(group: group, over: intervals, now: now) }
            var active: [Int] = []
            if metric == .churnRate { active = try await sums.snapshotSums(group: group, at: intervals.map(\.start)).map { $0.counts[0] } }
            return intervals.indices.map { position in
                let interval = intervals[position]
                let counts = churn ? [:] : items[position].counts
                switch metric {
                case .newTrials: return point(interval, Decimal(counts[.newTrial] ?? 0))
                case .newSubscriptions: return point(interval, Decimal(counts[.newSubscription] ?? 0))
                case .trialConversions: return point(interval, Decimal(counts[.trialConversion] ?? 0))
                case .renewals: return point(interval, Decimal(counts[.renewal] ?? 0))
                case .billingIssues: return point(interval, Decimal(counts[.billingIssue] ?? 0))
                case .billingRecoveries: return point(interval, Decimal(counts[.billingRecovery] ?? 0))
                case .churnedSubscriptions: return point(interval, Decimal(churned[position]))
                default:
                    guard active[position] > 0, interval.start <= now else { return point(interval, nil) }
                    return point(interval, Decimal(churned[position]) / Decimal(active[position]))
                }
            }
        }
    }

    /// `metric` over `intervals` per group of `breakdown`, from maintained chain figures.
    public func series(
        _ metric: MetricName, by breakdown: Breakdown, over intervals: [DateInterval], now: Date, from sums: some FigureSums
    )
        async throws -> [String: [MetricPoint]]
    {
        let prefix = breakdown.rawValue + "="
        let groups = try await sums.groups(of: breakdown)
        let series = try await groups.concurrentMap(width: Self.concurrentReads) { group in
            try await self.series(metric, group: group, over: intervals, now: now, from: sums)
        }
        return Dictionary(zip(groups.map { String($0.dropFirst(prefix.count)) }, series), uniquingKeysWith: { first, _ in first })
    }
}

extension MetricPoint {
    /// A snapshot metric's point.
    fileprivate init(_ interval: DateInterval, _ snapshot: Snapshot, _ metric: MetricName) {
        self.init(start: interval.start, end: interval.end, value: nil, unconverted: [:])
        switch metric {
        case .activeSubscriptions: value = Decimal(snapshot.activeSubscriptions)
        case .activeTrials: value = Decimal(snapshot.activeTrials)
        case .gracePeriod: value = Decimal(snapshot.gracePeriod)
        case .billingRetry: value = Decimal(snapshot.billingRetry)
        case .familyShared: value = Decimal(snapshot.familyShared)
        default: (value, unconverted) = (snapshot.mrr, snapshot.unconverted)
        }
    }
}
