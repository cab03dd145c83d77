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
/// | `proceeds` | the same after Apple's commission on each (30 %; 15 % after a year of paid service in the group with no gap over 60 days, or in the Small Business Program), not reduced by refunds | purchase date |
/// | `refunds`, `refundAmount` | Apple's refunds (full, or the refunded share of a prorated one); an upgrade's prorated credit is not a refund | refund date |
/// | `netRevenue` | `revenue` − `refundAmount` of the same interval | — |
///
/// Family-shared copies are the purchaser's sales and never count. Refunds never rewrite the
/// revenue of the interval the sale was in.
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
    /// year of paid service is the subscriber's).
    public func revenue(of histories: [PurchaseHistory], from start: Date, to end: Date) -> RevenueFigures {
        let sums = moneySums(of: histories, from: start, to: end)
        var net = sums.revenue
        net.subtract(sums.refunded)
        return RevenueFigures(
            start: start, end: end, currency: configuration.reportingCurrency, sales: sums.sales, revenue: Amount(sums.revenue, configuration),
            proceeds: Amount(sums.proceeds, configuration), refunds: sums.refunds, refundAmount: Amount(sums.refunded, configuration),
            netRevenue: Amount(net, configuration))
    }

    /// The exact sums behind ``revenue(of:from:to:)``, unrounded.
    func moneySums(
        of histories: [PurchaseHistory], from start: Date, to end: Date
    ) -> (
        sales: Int, revenue: MoneySum, proceeds: MoneySum, refunds: Int, refunded: MoneySum
    ) {
        var sales = 0
        var refunds = 0
        var revenue = MoneySum()
        var proceeds = MoneySum()
        var refunded = MoneySum()
        let policy = CommissionPolicy(smallBusinessProgram: configuration.smallBusiness)
        for history in histories.map({ $0.restricted(to: environment) }) {
            let ledger = RevenueLedger(history: history, catalog: catalog, at: end, policy: policy)
            for sale in ledger.transactions where sale.purchaseDate >= start && sale.purchaseDate < end {
                guard let price = sale.price else { continue }
                sales += 1
                revenue.add(price)
                proceeds.add(price, times: (Int64(10_000 - sale.commissionRate), 10_000))
            }
            for purchase in history.effectivePurchases where purchase.ownership == .purchased {
                guard let revocation = purchase.revocation, revocation.date >= start, revocation.date < end,
                    revocation.kind == .refund || revocation.kind == .proratedRefund,
                    let price = purchase.price ?? catalog.product(purchase.productId)?.listPrice
                else { continue }
                refunds += 1
                if revocation.kind == .proratedRefund, let share = revocation.percentage {
                    refunded.add(price, times: (Int64(min(max(share, 0), 100_000)), 100_000))
                } else {
                    refunded.add(price)
                }
            }
        }
        return (sales, revenue, proceeds, refunds, refunded)
    }
}
