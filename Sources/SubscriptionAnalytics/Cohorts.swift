import Foundation
import SubscriptionEngine

/// Customers grouped by when they first paid, and how each group held up.
///
/// | figure | what counts |
/// |---|---|
/// | cohort | the customers whose first paid period of an auto-renewable subscription (theirs, not family-shared; of `product` when asked) began in the week or month |
/// | `active`, `retention` | of them, how many have an active paid subscription (`activeSubscriptions`' definition) at the end of each later week or month (now, for the one under way); ÷ the cohort's size |
/// | `revenuePerCustomer` | their realized revenue so far (every sale of every product type, less refunds, by the end of that week or month) ÷ the cohort's size: lifetime value so far, in the reporting currency |
public struct Cohort: Sendable, Hashable, Encodable {
    public var start: Date
    public var end: Date
    public var customers: Int
    /// Period 0 is the cohort's own week or month.
    public var periods: [CohortPeriod]
}

public struct CohortPeriod: Sendable, Hashable, Encodable {
    public var index: Int
    public var start: Date
    public var end: Date
    public var active: Int
    /// `active` ÷ the cohort's customers, to four decimals.
    public var retention: Decimal
    /// Net revenue so far per customer, rounded once to the cent.
    public var revenuePerCustomer: Decimal
    /// Revenue per customer in currencies without an exchange rate, each in its own units.
    public var unconverted: [String: Decimal]
}

extension SubscriptionAnalytics {
    /// When `history`'s first paid period of a purchaser-owned auto-renewable subscription began
    /// (a free trial is not paid): the instant that places a customer in a cohort.
    public func firstPaid(of history: PurchaseHistory) -> Date? {
        history.effectivePurchases.filter { isOwnedSubscription($0) && $0.offer?.kind != .freeTrial }.map(\.purchaseDate).min()
    }

    /// The cohorts of `[from, to)` cut by `period` (weeks or months; a day is refused) over
    /// `customers` (one history per customer), each followed until `now`.
    public func cohorts(
        of customers: [PurchaseHistory], from: Date, to: Date, period: ReportingInterval, product: String? = nil, now: Date
    ) throws(ReportingInterval.Problem) -> [Cohort] {
        guard period != .day else { throw ReportingInterval.Problem(description: "period must be week or month") }
        let timeZone = TimeZone(identifier: configuration.timeZone) ?? .gmt
        let cohortIntervals = try period.intervals(from: from, to: to, timeZone: timeZone)
        var members = [[PurchaseHistory]](repeating: [], count: cohortIntervals.count)
        for customer in customers {
            var history = customer.restricted(to: environment)
            if let product { history = history.restricted { $0.productId == product } }
            guard let firstPaid = firstPaid(of: history),
                let index = cohortIntervals.firstIndex(where: { $0.start <= firstPaid && firstPaid < $0.end })
            else { continue }
            members[index].append(history)
        }
        var cells = 0
        return try cohortIntervals.indices.map { (index: Int) throws(ReportingInterval.Problem) -> Cohort in
            let interval = cohortIntervals[index]
            let group = members[index]
            var cohort = Cohort(start: interval.start, end: interval.end, customers: group.count, periods: [])
            guard !group.isEmpty, interval.start < now else { return cohort }
            let later = try period.intervals(from: interval.start, to: max(now, interval.end), timeZone: timeZone)
            cells += later.count
            guard cells <= 20_000 else {
                throw ReportingInterval.Problem(description: "more than 20000 cohort cells: ask for a shorter range or a longer period")
            }
            let cells = later.filter { $0.start < now }
            let ends = cells.map { min($0.end, now) }
            // Each member's snapshots at every cell's end at once; the group's money in one pass,
            // summed so far at each end.
            var active = [Int](repeating: 0, count: cells.count)
            for member in group {
                let snapshots = SnapshotIndex(analytics: self, histories: [member]).snapshots(at: ends.map { $0.addingTimeInterval(-0.001) })
                for (position, snapshot) in snapshots.enumerated() where snapshot.activeSubscriptions > 0 { active[position] += 1 }
            }
            var starts = [Date.distantPast]
            starts += ends.dropLast()
            let money = moneySeries(of: group, over: zip(starts, ends).map { DateInterval(start: $0, end: max($0, $1)) }, now: now)
            var net = MoneySum()
            for (position, cell) in cells.enumerated() {
                net.add(money[position].revenue)
                net.subtract(money[position].refunded)
                let (perCustomer, unconverted) = net.divided(by: Int64(group.count)).total(in: configuration)
                var retention = Decimal(active[position]) / Decimal(group.count)
                var rounded = Decimal()
                NSDecimalRound(&rounded, &retention, 4, .plain)
                cohort.periods.append(
                    CohortPeriod(
                        index: position, start: cell.start, end: cell.end, active: active[position], retention: rounded,
                        revenuePerCustomer: perCustomer, unconverted: unconverted))
            }
            return cohort
        }
    }
}
