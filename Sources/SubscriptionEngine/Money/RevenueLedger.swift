import Foundation

/// Every transaction's money up to an instant, with Apple's commission and refunds.
///
/// Prices come from the transaction (StoreKit 2's milliunits) or, for sources without prices
/// (legacy receipts), from the catalog; a free trial costs nothing, and an operator's manual
/// grant has no price at all (it is not a sale, whatever the catalog says its product costs).
/// Family-shared transactions are the purchaser's sales, not this customer's, and are left out.
public struct RevenueLedger: Sendable, Hashable, Codable {
    /// One entry per transaction bought by the instant, oldest first.
    public var transactions: [TransactionRevenue]
    /// Totals per currency, sorted by currency code.
    public var totals: [RevenueTotal]

    public init(history: PurchaseHistory, catalog: Catalog, at instant: Date, policy: CommissionPolicy = CommissionPolicy()) {
        let purchases = history.effectivePurchases
            .filter { $0.purchaseDate <= instant && $0.ownership == .purchased }
            .sorted(by: PurchaseFact.chronologically)
        var chains: [String: [PurchaseFact]] = [:]
        for purchase in purchases where Self.type(of: purchase, catalog) == .autoRenewable {
            chains[purchase.originalTransactionId, default: []].append(purchase)
        }
        var accessEnds: [String: Date] = [:]
        for (_, chain) in chains {
            let sorted = chain.sorted(by: PurchaseFact.chronologically)
            for index in sorted.indices {
                accessEnds[sorted[index].transactionId] = SubscriptionState.accessEnd(of: index, in: sorted) ?? sorted[index].purchaseDate
            }
        }

        var service: [String: (total: TimeInterval, lastEnd: Date)] = [:]
        var entries: [TransactionRevenue] = []
        for purchase in purchases {
            let price = Self.price(of: purchase, catalog)
            var rate = policy.smallBusinessProgram ? policy.reducedRate : policy.standardRate
            var before: TimeInterval = 0
            var refunded: Money? = price.map { .zero($0.currency) }
            if let price, purchase.isUpgraded, let end = accessEnds[purchase.transactionId], end <= instant {
                refunded = Self.unusedPart(of: purchase, price: price, accessEnd: end)
            } else if let price, let revocation = purchase.revocation, revocation.date <= instant {
                refunded = Self.refund(of: purchase, price: price, revocation: revocation, accessEnd: accessEnds[purchase.transactionId])
            }
            if Self.type(of: purchase, catalog) == .autoRenewable {
                let group =
                    purchase.subscriptionGroupIdentifier ?? catalog.product(purchase.productId)?.subscriptionGroupIdentifier ?? "chain:"
                    + purchase.originalTransactionId
                var record = service[group] ?? (0, purchase.purchaseDate)
                if purchase.purchaseDate.timeIntervalSince(record.lastEnd) > policy.maximumServiceGap { record.total = 0 }
                before = record.total
                if before >= policy.paidServiceForReducedRate { rate = policy.reducedRate }
                let end = min(accessEnds[purchase.transactionId] ?? purchase.purchaseDate, instant)
                let fullyRefunded = purchase.isRevoked(at: instant) && purchase.revocation?.kind != .proratedRefund
                if (price?.milliunits ?? 1) > 0, !fullyRefunded, end > purchase.purchaseDate {
                    record.total += end.timeIntervalSince(purchase.purchaseDate)
                    record.lastEnd = max(record.lastEnd, end)
                }
                service[group] = record
            }
            var proceeds: Money?
            if let price, let refunded {
                let kept = Money(milliunits: max(0, price.milliunits - refunded.milliunits), currency: price.currency)
                proceeds = kept.scaled(by: Int64(10_000 - rate), over: 10_000)
            }
            entries.append(
                TransactionRevenue(
                    transactionId: purchase.transactionId, originalTransactionId: purchase.originalTransactionId,
                    productId: purchase.productId, purchaseDate: purchase.purchaseDate, price: price,
                    commissionRate: rate, refunded: refunded, proceeds: proceeds, paidServiceBefore: before
                ))
        }
        transactions = entries

        var sums: [String: (Int64, Int64, Int64)] = [:]
        for entry in entries {
            guard let price = entry.price else { continue }
            var sum = sums[price.currency] ?? (0, 0, 0)
            sum.0 &+= price.milliunits
            sum.1 &+= entry.refunded?.milliunits ?? 0
            sum.2 &+= entry.proceeds?.milliunits ?? 0
            sums[price.currency] = sum
        }
        totals = sums.keys.sorted().compactMap { currency in
            guard let sum = sums[currency] else { return nil }
            return RevenueTotal(
                currency: currency, gross: Money(milliunits: sum.0, currency: currency),
                refunded: Money(milliunits: sum.1, currency: currency), proceeds: Money(milliunits: sum.2, currency: currency)
            )
        }
    }

    static func type(of purchase: PurchaseFact, _ catalog: Catalog) -> ProductKind? {
        purchase.productType ?? catalog.product(purchase.productId)?.type ?? (purchase.expiresDate != nil ? .autoRenewable : nil)
    }

    static func price(of purchase: PurchaseFact, _ catalog: Catalog) -> Money? {
        guard !purchase.isManualGrant else { return nil }
        if let price = purchase.price { return price }
        let list = catalog.product(purchase.productId)?.listPrice
        if purchase.offer?.kind == .freeTrial { return .zero(list?.currency ?? "USD") }
        return list.map { $0.scaled(by: Int64(max(purchase.quantity, 1)), over: 1) }
    }

    /// The part of a period's price for the time after `accessEnd` (Apple refunds it on upgrade).
    private static func unusedPart(of purchase: PurchaseFact, price: Money, accessEnd: Date) -> Money {
        guard let expires = purchase.expiresDate, expires > purchase.purchaseDate else { return .zero(price.currency) }
        let unused = min(max(0, expires.timeIntervalSince(accessEnd)), expires.timeIntervalSince(purchase.purchaseDate))
        let whole = expires.timeIntervalSince(purchase.purchaseDate)
        return price.scaled(by: Int64((unused * 1000).rounded()), over: Int64((whole * 1000).rounded()))
    }

    private static func refund(of purchase: PurchaseFact, price: Money, revocation: Revocation, accessEnd: Date?) -> Money {
        if revocation.kind == .upgrade {
            return unusedPart(of: purchase, price: price, accessEnd: accessEnd ?? revocation.date)
        }
        if revocation.kind == .proratedRefund, let percentage = revocation.percentage {
            return price.scaled(by: Int64(min(max(percentage, 0), 100_000)), over: 100_000)
        }
        return price
    }
}
