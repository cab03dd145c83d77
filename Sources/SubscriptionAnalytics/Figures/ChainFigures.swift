import Foundation
import SubscriptionEngine

/// What one chain adds to every figure, as rows a store can keep and sum (see
/// `docs/read-side.md`): its contributions to snapshots over time (``FigureRun``), its dated
/// flows and money (``FigureItem``), and the states in which its paid access had ended
/// (``ChurnSpan``), for the whole app (group `""`) and for each group of each ``Breakdown`` it
/// has periods in (`product=…`, `storefront=…`, `offer=…`: the chain's facts restricted to that
/// group's periods, as a `groupBy` series restricts them).
///
/// The replay (``SubscriptionAnalytics/series(_:of:over:now:index:)`` and its kin) sums these
/// same rows in memory, so each definition lives in one place.
public struct ChainFigures: Sendable, Hashable, Codable {
    public var runs: [FigureRun] = []
    public var items: [FigureItem] = []
    public var churn: [ChurnSpan] = []
    /// Per group (`""` and `product=…`), when the chain's first paid period of a purchaser-owned
    /// auto-renewable subscription began: what places its customer in a cohort.
    public var firstPaid: [String: Date] = [:]
    /// The chain's purchaser-owned purchases in the environment (the whole app's group only):
    /// what an experiment asks of its exposed customers.
    public var purchases: [FigurePurchase] = []

    public init(
        runs: [FigureRun] = [], items: [FigureItem] = [], churn: [ChurnSpan] = [], firstPaid: [String: Date] = [:],
        purchases: [FigurePurchase] = []
    ) {
        self.runs = runs
        self.items = items
        self.churn = churn
        self.firstPaid = firstPaid
        self.purchases = purchases
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        runs = try container.decode([FigureRun].self, forKey: .runs)
        items = try container.decode([FigureItem].self, forKey: .items)
        churn = try container.decode([ChurnSpan].self, forKey: .churn)
        firstPaid = try container.decodeIfPresent([String: Date].self, forKey: .firstPaid) ?? [:]
        purchases = try container.decodeIfPresent([FigurePurchase].self, forKey: .purchases) ?? []
    }

    enum CodingKeys: String, CodingKey { case runs, items, churn, firstPaid, purchases }

    /// The group of a breakdown's key: `product=pro.monthly`; `""` is the whole app.
    public static func group(_ breakdown: Breakdown, _ key: String) -> String { breakdown.rawValue + "=" + key }
}

/// A purchaser-owned purchase of a chain (any product type), as an experiment's results read it.
public struct FigurePurchase: Sendable, Hashable, Codable {
    public var at: Date
    /// A free trial's period.
    public var trial: Bool
    /// Charged more than nothing.
    public var paid: Bool
    /// Refunded by Apple (in full or in part).
    public var refunded: Bool

    public init(at: Date, trial: Bool, paid: Bool, refunded: Bool) {
        self.at = at
        self.trial = trial
        self.paid = paid
        self.refunded = refunded
    }
}

/// A chain's contribution to every snapshot taken in `[from, until)` (`until` nil: for ever).
public struct FigureRun: Sendable, Hashable, Codable {
    public var group: String
    public var from: Date
    public var until: Date?
    public var slots: SnapshotSlots
    /// The monthly recurring revenue it adds, when it is an active, priced subscription.
    public var mrr: MoneyPart?

    public init(group: String, from: Date, until: Date?, slots: SnapshotSlots, mrr: MoneyPart?) {
        self.group = group
        self.from = from
        self.until = until
        self.slots = slots
        self.mrr = mrr
    }

    /// Whether the run covers `instant`.
    public func covers(_ instant: Date) -> Bool { from <= instant && until.map { instant < $0 } ?? true }
}

/// The snapshot counts a run adds one to.
public struct SnapshotSlots: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let activeSubscription = SnapshotSlots(rawValue: 1)
    public static let activeTrial = SnapshotSlots(rawValue: 2)
    public static let gracePeriod = SnapshotSlots(rawValue: 4)
    public static let billingRetry = SnapshotSlots(rawValue: 8)
    public static let familyShared = SnapshotSlots(rawValue: 16)
    public static let unpriced = SnapshotSlots(rawValue: 32)

    /// Every slot, in the order of ``SnapshotSums/counts``.
    public static let ordered: [SnapshotSlots] = [.activeSubscription, .activeTrial, .gracePeriod, .billingRetry, .familyShared, .unpriced]
}

/// An exact amount: `amount` milliunits of `currency` ÷ `denominator` (a price times a fraction,
/// such as a yearly price per month or the proceeds' share, kept as integers).
public struct MoneyPart: Sendable, Hashable, Codable {
    public var currency: String
    public var amount: Int64
    public var denominator: Int64

    public init(currency: String, amount: Int64, denominator: Int64) {
        self.currency = currency
        self.amount = amount
        self.denominator = denominator
    }

    /// `money` × `factor`, the fraction reduced first (so sums of many stay within 64 bits).
    public init(_ money: Money, times factor: (numerator: Int64, denominator: Int64) = (1, 1)) {
        let (numerator, denominator) = MoneySum.lowestTerms(factor)
        self.init(currency: money.currency, amount: money.milliunits &* numerator, denominator: max(denominator, 1))
    }
}

extension MoneySum {
    public mutating func add(_ part: MoneyPart) {
        add(Money(milliunits: part.amount, currency: part.currency), times: (1, part.denominator))
    }
}

/// What a dated item counts (see ``SubscriberFlows`` and ``RevenueFigures`` for the definitions).
public enum FlowKind: String, Sendable, Hashable, CaseIterable, Codable {
    case newTrial, newSubscription, trialConversion, renewal, billingIssue, billingRecovery
    /// A sale: its price (`money`) and Apple's proceeds of it (`proceeds`).
    case sale
    /// A refund: the amount refunded (`money`).
    case refund
    /// A customer joining a cohort (the cohort rows only): dated at the first paid period.
    case cohortMember
}

/// A dated flow of a chain: one of `kind` at `at`, with its money where it has any.
public struct FigureItem: Sendable, Hashable, Codable {
    public var group: String
    public var kind: FlowKind
    public var at: Date
    public var money: MoneyPart?
    public var proceeds: MoneyPart?

    public init(group: String, kind: FlowKind, at: Date, money: MoneyPart? = nil, proceeds: MoneyPart? = nil) {
        self.group = group
        self.kind = kind
        self.at = at
        self.money = money
        self.proceeds = proceeds
    }
}

/// A paid state without access (expired, revoked, in billing retry) holding over `[from, until)`
/// whose access ended at `ended`: it is churn in the interval containing `ended` when it still
/// holds at that interval's end (or now, for the interval under way).
public struct ChurnSpan: Sendable, Hashable, Codable {
    public var group: String
    public var ended: Date
    public var from: Date
    public var until: Date?

    public init(group: String, ended: Date, from: Date, until: Date?) {
        self.group = group
        self.ended = ended
        self.from = from
        self.until = until
    }

    /// Whether it counts in `interval` (the one containing ``ended``) as known at `now`.
    public func counts(in interval: DateInterval, now: Date) -> Bool {
        let instant = min(interval.end, now)
        return ended <= now && from <= instant && until.map { instant < $0 } ?? true
    }
}

extension SubscriptionAnalytics {
    /// The figures of one chain (every fact of it, any environment): its rows in this
    /// environment, for the whole app and for each group it has periods in.
    public func figures(ofChain chain: PurchaseHistory) -> ChainFigures {
        let history = chain.restricted(to: environment)
        var result = ChainFigures()
        add(group: "", of: history, to: &result)
        result.purchases = history.effectivePurchases.filter { $0.ownership == .purchased }.map { purchase in
            FigurePurchase(
                at: purchase.purchaseDate, trial: purchase.offer?.kind == .freeTrial, paid: (purchase.price?.milliunits ?? 0) > 0,
                refunded: purchase.revocation?.kind == .refund || purchase.revocation?.kind == .proratedRefund)
        }
        for breakdown in Breakdown.allCases {
            for key in Set(history.purchases.values.map(breakdown.key(of:))).sorted() {
                add(group: ChainFigures.group(breakdown, key), of: history.restricted { breakdown.key(of: $0) == key }, to: &result)
            }
        }
        return result
    }

    /// Adds the rows of `history` (restricted to the environment) under `group`.
    func add(group: String, of history: PurchaseHistory, to figures: inout ChainFigures) {
        for (_, runs) in SnapshotIndex.runs(of: history, analytics: self).chains {
            for (position, run) in runs.enumerated() where !run.part.isEmpty {
                let until = position + 1 < runs.count ? runs[position + 1].from : nil
                figures.runs.append(
                    FigureRun(
                        group: group, from: run.from, until: until, slots: run.part.slots,
                        mrr: run.part.mrr.map { MoneyPart($0.price, times: $0.factor) }))
            }
        }
        let flows = flowRows(of: history)
        figures.items += (flows.items + moneyItems(of: history)).map {
            var item = $0
            item.group = group
            return item
        }
        figures.churn += flows.churn.map { ChurnSpan(group: group, ended: $0.ended, from: $0.from, until: $0.until) }
        if group.isEmpty || group.hasPrefix(Breakdown.product.rawValue + "="), let first = firstPaid(of: history) {
            figures.firstPaid[group] = first
        }
    }
}

extension Contribution {
    var slots: SnapshotSlots {
        var slots: SnapshotSlots = []
        if activeSubscription { slots.insert(.activeSubscription) }
        if activeTrial { slots.insert(.activeTrial) }
        if gracePeriod { slots.insert(.gracePeriod) }
        if billingRetry { slots.insert(.billingRetry) }
        if familyShared { slots.insert(.familyShared) }
        if unpriced { slots.insert(.unpriced) }
        return slots
    }
}
