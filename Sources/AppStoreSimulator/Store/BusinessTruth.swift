import AppStoreModels
import Foundation

/// The simulated App Store's own account of the business, taken from its truth alone (every
/// transaction it issued and every billing episode it lived), so that a backend's analytics can
/// be checked against figures computed without them.
///
/// The definitions are the ones Storekeeper publishes: a subscription is a purchaser's chain
/// (family-shared copies never count); it is active at an instant when one of its periods
/// covers the instant (from purchase to expiry, cut short by a refund or by the next period that
/// started inside it) or when Apple's grace period after a failed renewal runs; it is a trial
/// when that period is a free trial; MRR is each active paid subscription's period price per
/// month (a week × 52/12, a year ÷ 12); revenue is every sale dated by its purchase, proceeds the
/// same after Apple's commission (30 %, 15 % after a year of paid service in the group with no
/// lapse over 60 days), refunds dated by the refund. Money is summed exactly per currency,
/// converted with `exchangeRates`, and rounded once to the cent.
public struct BusinessTruth: Sendable {
    /// The figures at one instant.
    public struct Snapshot: Sendable, Hashable {
        public var activeSubscriptions: Int
        public var activeTrials: Int
        public var mrr: Decimal
    }

    /// The money of an interval.
    public struct Sales: Sendable, Hashable {
        public var revenue: Decimal
        public var proceeds: Decimal
        public var refundAmount: Decimal
    }

    struct Sale {
        var transaction: JWSTransactionDecodedPayload
        var customerId: String
        var accessEnd: Date
    }

    let products: [String: SimulatedProduct]
    let reportingCurrency: String
    let exchangeRates: [String: Decimal]
    /// Purchaser-owned transactions.
    let sales: [Sale]
    /// Purchaser chains: their periods oldest first, and their billing episodes.
    let chains: [(periods: [Sale], episodes: [BillingEpisode])]

    public init(store: SimulatedAppStore, products: [SimulatedProduct], reportingCurrency: String, exchangeRates: [String: Decimal]) {
        self.products = Dictionary(products.map { ($0.productId, $0) }, uniquingKeysWith: { first, _ in first })
        self.reportingCurrency = reportingCurrency
        self.exchangeRates = exchangeRates
        let owned = store.allTransactions().filter { $0.transaction.inAppOwnershipType != .familyShared }
        var byChain: [String: [(customerId: String, transaction: JWSTransactionDecodedPayload)]] = [:]
        var oneTime: [Sale] = []
        for entry in owned {
            if entry.transaction.type == .autoRenewableSubscription, let chain = entry.transaction.originalTransactionId {
                byChain[chain, default: []].append(entry)
            } else if let date = entry.transaction.purchaseDate {
                oneTime.append(Sale(transaction: entry.transaction, customerId: entry.customerId, accessEnd: date))
            }
        }
        var chains: [(periods: [Sale], episodes: [BillingEpisode])] = []
        var all = oneTime
        for (chain, entries) in byChain.sorted(by: { $0.key < $1.key }) {
            let sorted = entries.sorted { ($0.transaction.purchaseDate ?? .distantPast) < ($1.transaction.purchaseDate ?? .distantPast) }
            var periods: [Sale] = []
            for (index, entry) in sorted.enumerated() {
                let start = entry.transaction.purchaseDate ?? .distantPast
                var end = entry.transaction.expiresDate ?? start
                if let revoked = entry.transaction.revocationDate { end = min(end, revoked) }
                if index + 1 < sorted.count, let next = sorted[index + 1].transaction.purchaseDate, next < end { end = next }
                periods.append(Sale(transaction: entry.transaction, customerId: entry.customerId, accessEnd: end))
            }
            chains.append((periods, store.billingEpisodes(chain)))
            all += periods
        }
        self.chains = chains
        self.sales = all.sorted { ($0.transaction.purchaseDate ?? .distantPast) < ($1.transaction.purchaseDate ?? .distantPast) }
    }

    /// Active paid subscriptions, active trials and MRR at `instant`.
    public func snapshot(at instant: Date) -> Snapshot {
        var snapshot = Snapshot(activeSubscriptions: 0, activeTrials: 0, mrr: 0)
        var mrr = Tally()
        for chain in chains {
            let begun = chain.periods.filter { ($0.transaction.purchaseDate ?? .distantFuture) <= instant }
            guard let latest = begun.last else { continue }
            let current: Sale
            if let covering = begun.last(where: { instant < $0.accessEnd }) {
                current = covering
            } else if latest.transaction.revocationDate.map({ $0 <= instant }) != true,
                chain.episodes.contains(where: { $0.due == latest.transaction.expiresDate && $0.isInGrace(at: instant) })
            {
                current = latest
            } else {
                continue
            }
            if current.transaction.offerDiscountType == .freeTrial {
                snapshot.activeTrials += 1
                continue
            }
            snapshot.activeSubscriptions += 1
            // A monthly payment of a 12-month commitment is a month's, whatever the product's year.
            let monthly = current.transaction.billingPlanType == .monthly ? "P1M" : nil
            guard let price = current.transaction.price, let currency = current.transaction.currency,
                let period = monthly ?? products[current.transaction.productId ?? ""]?.period
            else { continue }
            let (times, over) = Self.perMonth(period)
            mrr.add(price * times, currency: currency, over: over)
        }
        snapshot.mrr = mrr.total(in: reportingCurrency, rates: exchangeRates)
        return snapshot
    }

    /// Revenue, proceeds and refunds of `[start, end)`.
    public func sales(from start: Date, to end: Date) -> Sales {
        var revenue = Tally()
        var proceeds = Tally()
        var refunded = Tally()
        let rates = commissionRates(asOf: .distantFuture)
        for sale in sales {
            let transaction = sale.transaction
            guard let price = transaction.price, let currency = transaction.currency, let id = transaction.transactionId else { continue }
            if let date = transaction.purchaseDate, date >= start, date < end {
                revenue.add(price, currency: currency)
                proceeds.add(price * Int64(100 - (rates[id] ?? 30)), currency: currency, over: 100)
            }
            if let revoked = transaction.revocationDate, revoked >= start, revoked < end {
                switch transaction.revocationType {
                case .refundFull?: refunded.add(price, currency: currency)
                case .refundProrated?: refunded.add(price * Int64(transaction.revocationPercentage ?? 100_000), currency: currency, over: 100_000)
                default: break
                }
            }
        }
        return Sales(
            revenue: revenue.total(in: reportingCurrency, rates: exchangeRates),
            proceeds: proceeds.total(in: reportingCurrency, rates: exchangeRates),
            refundAmount: refunded.total(in: reportingCurrency, rates: exchangeRates))
    }

    /// Apple's commission on each sale, in percent, with what is known at `instant` (everything,
    /// for the figures: a refund learned later takes its period out of the count): 15 on a
    /// subscription period bought after a year of paid service in its group by the same
    /// customer (paid periods not refunded, counted to their end or `instant`; a lapse of more
    /// than 60 days starts the count again), 30 otherwise.
    func commissionRates(asOf instant: Date) -> [String: Int] {
        var rates: [String: Int] = [:]
        var service: [String: (days: TimeInterval, lastEnd: Date?)] = [:]
        for sale in sales {
            let transaction = sale.transaction
            guard let id = transaction.transactionId, let start = transaction.purchaseDate, start <= instant else { continue }
            rates[id] = 30
            guard transaction.type == .autoRenewableSubscription else { continue }
            let group = "\(sale.customerId)/\(transaction.subscriptionGroupIdentifier ?? transaction.originalTransactionId ?? id)"
            var record = service[group] ?? (0, nil)
            if let lastEnd = record.lastEnd, start.timeIntervalSince(lastEnd) > 60 * 86_400 { record.days = 0 }
            if record.days >= 365 * 86_400 { rates[id] = 15 }
            let refunded =
                transaction.revocationDate.map { $0 <= instant } == true && transaction.revocationType == .refundFull
            let end = min(sale.accessEnd, instant)
            if (transaction.price ?? 0) > 0, !refunded, end > start {
                record.days += end.timeIntervalSince(start)
                record.lastEnd = max(record.lastEnd ?? end, end)
            }
            service[group] = record
        }
        return rates
    }

    /// A period's price per month as a fraction: a week × 52/12, n months ÷ n, a year ÷ 12.
    static func perMonth(_ period: String) -> (times: Int64, over: Int64) {
        switch period {
        case "P1W", "P7D": (52, 12)
        case "P1M": (1, 1)
        case "P2M": (1, 2)
        case "P3M": (1, 3)
        case "P6M": (1, 6)
        case "P1Y": (1, 12)
        default: (1, 1)
        }
    }

    /// Exact sums of milliunits per currency and divisor.
    struct Tally {
        var sums: [String: [Int64: Int64]] = [:]

        mutating func add(_ milliunits: Int64, currency: String, over divisor: Int64 = 1) {
            sums[currency, default: [:]][divisor, default: 0] += milliunits
        }

        /// Converted to `currency` and rounded once to the cent, half away from zero.
        func total(in currency: String, rates: [String: Decimal]) -> Decimal {
            var total: Decimal = 0
            for (code, parts) in sums {
                let rate: Decimal = code == currency ? 1 : rates[code] ?? 0
                for (divisor, sum) in parts { total += Decimal(sum) * rate / Decimal(divisor) }
            }
            var units = total / 1000
            var rounded = Decimal()
            NSDecimalRound(&rounded, &units, 2, .plain)
            return rounded
        }
    }
}
