import Foundation
import SubscriptionEngine

/// An amount in the reporting currency, rounded once to the cent, with the sums in currencies
/// that have no exchange rate listed apart in their own units.
public struct Amount: Sendable, Hashable {
    public var value: Decimal
    public var unconverted: [String: Decimal]

    init(_ sum: MoneySum, _ configuration: AnalyticsConfiguration) {
        (value, unconverted) = sum.total(in: configuration)
    }
}

/// The money that moved in an interval `[start, end)`.
///
/// | metric | what counts | dated by |
/// |---|---|---|
/// | `revenue` | the price of every transaction (every product type) the purchaser paid | purchase date |
/// | `proceeds` | the same after Apple's commission on each (30 %; 15 % after a year of paid service in the group with no gap over 60 days, or in the Small Business Program; from every fact known now, so a refund learned later takes its period out of the year), not reduced by refunds | purchase date |
/// | `refunds`, `refundAmount` | Apple's refunds (full, or the refunded share of a prorated one); an upgrade's prorated credit is not a refund | refund date |
/// | `netRevenue` | `revenue` − `refundAmount` of the same interval | — |
///
/// Family-shared copies are the purchaser's sales and never count. An operator's manual grant
/// has no price: it is no sale and adds nothing to revenue or proceeds, whatever the catalog's
/// price of its product. Refunds never rewrite the revenue of the interval the sale was in. An
/// interval that contains now counts what is dated at or before now.
public struct RevenueFigures: Sendable, Hashable {
    public var start: Date
    public var end: Date
    public var currency: String
    /// How many transactions were sold.
    public var sales: Int
    public var revenue: Amount
    public var proceeds: Amount
    public var refunds: Int
    public var refundAmount: Amount
    public var netRevenue: Amount
}

extension SubscriptionAnalytics {
    /// The revenue figures of `[start, end)` over `histories` (one per customer: the commission's
    /// year of paid service is the subscriber's), up to `now`.
    public func revenue(of histories: [PurchaseHistory], from start: Date, to end: Date, now: Date) -> RevenueFigures {
        moneySeries(of: histories, over: [DateInterval(start: start, end: max(start, end))], now: now)[0]
            .figures(DateInterval(start: start, end: max(start, end)), configuration)
    }

    /// The exact sums of each of `intervals` (sorted, not overlapping), in one pass over the
    /// facts: each sale in the interval of its purchase, each refund in the interval of its date,
    /// when that date is at or before `now`. Apple's commission on each sale comes from every fact
    /// known now (a refund learned later takes its period out of the year of paid service).
    func moneySeries(of histories: [PurchaseHistory], over intervals: [DateInterval], now: Date) -> [MoneySums] {
        var sums = [MoneySums](repeating: MoneySums(), count: intervals.count)
        for history in histories {
            for item in moneyItems(of: history.restricted(to: environment)) where item.at <= now {
                guard let index = intervals.position(of: item.at) else { continue }
                sums[index].add(item)
            }
        }
        return sums
    }

    /// The sales and refunds of `history` (restricted to the environment already), dated: each
    /// sale at its purchase with its price and Apple's proceeds (the commission from every fact
    /// known now), each refund at its date with the amount refunded.
    func moneyItems(of history: PurchaseHistory) -> [FigureItem] {
        var items: [FigureItem] = []
        let policy = CommissionPolicy(smallBusinessProgram: configuration.smallBusiness)
        let ledger = RevenueLedger(history: history, catalog: catalog, at: .distantFuture, policy: policy)
        for sale in ledger.transactions {
            guard let price = sale.price else { continue }
            items.append(
                FigureItem(
                    group: "", kind: .sale, at: sale.purchaseDate, money: MoneyPart(price),
                    proceeds: MoneyPart(price, times: (Int64(10_000 - sale.commissionRate), 10_000))))
        }
        for purchase in history.effectivePurchases where purchase.ownership == .purchased && !purchase.isManualGrant {
            guard let revocation = purchase.revocation, revocation.kind == .refund || revocation.kind == .proratedRefund,
                let price = purchase.price ?? catalog.product(purchase.productId)?.listPrice
            else { continue }
            let refunded =
                revocation.kind == .proratedRefund && revocation.percentage != nil
                ? MoneyPart(price, times: (Int64(min(max(revocation.percentage ?? 0, 0), 100_000)), 100_000)) : MoneyPart(price)
            items.append(FigureItem(group: "", kind: .refund, at: revocation.date, money: refunded))
        }
        return items
    }
}

/// The exact money of an interval, before rounding.
struct MoneySums {
    var sales = 0
    var revenue = MoneySum()
    var proceeds = MoneySum()
    var refunds = 0
    var refunded = MoneySum()

    /// Adds a money item (a sale or a refund); other kinds add nothing.
    mutating func add(_ item: FigureItem) {
        switch item.kind {
        case .sale:
            sales += 1
            if let money = item.money { revenue.add(money) }
            if let proceeds = item.proceeds { self.proceeds.add(proceeds) }
        case .refund:
            refunds += 1
            if let money = item.money { refunded.add(money) }
        default:
            break
        }
    }

    func figures(_ interval: DateInterval, _ configuration: AnalyticsConfiguration) -> RevenueFigures {
        var net = revenue
        net.subtract(refunded)
        return RevenueFigures(
            start: interval.start, end: interval.end, currency: configuration.reportingCurrency, sales: sales,
            revenue: Amount(revenue, configuration), proceeds: Amount(proceeds, configuration), refunds: refunds,
            refundAmount: Amount(refunded, configuration), netRevenue: Amount(net, configuration))
    }
}

extension MoneySums {
    /// The point of a money metric (`revenue`, `proceeds`, `refunds`, `refundAmount`,
    /// `netRevenue`) over `interval`.
    func point(_ metric: MetricName, _ interval: DateInterval, _ configuration: AnalyticsConfiguration) -> MetricPoint {
        let figures = figures(interval, configuration)
        let amount: Amount
        switch metric {
        case .refunds: return MetricPoint(start: interval.start, end: interval.end, value: Decimal(figures.refunds), unconverted: [:])
        case .revenue: amount = figures.revenue
        case .proceeds: amount = figures.proceeds
        case .refundAmount: amount = figures.refundAmount
        default: amount = figures.netRevenue
        }
        return MetricPoint(start: interval.start, end: interval.end, value: amount.value, unconverted: amount.unconverted)
    }
}
