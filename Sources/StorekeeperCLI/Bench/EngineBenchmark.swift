import Foundation
import SubscriptionEngine

/// A realistic customer history for timing the engine, and one unit of work on it.
///
/// The history: three years of monthly renewals in one group (a free trial first, an upgrade
/// to a higher tier in month 20, a refund of month 10), a lapsed subscription in a second group,
/// a non-consumable, a stack of two non-renewing passes and a dozen consumables — 60 facts,
/// with renewal infos. `storekeeper bench engine` calls ``run(iteration:)`` in a loop and
/// reports states per second.
public struct EngineBenchmark: Sendable {
    /// The customer's facts.
    public let history: PurchaseHistory
    /// The app's catalog.
    public let catalog: Catalog
    /// The instants evaluated, spread over the history (cycled by ``run(iteration:)``).
    public let instants: [Date]
    /// The engine's settings.
    public let configuration: EngineConfiguration

    public init(configuration: EngineConfiguration = EngineConfiguration()) {
        self.configuration = configuration
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let month = ISO8601Duration(months: 1)
        var purchases: [PurchaseFact] = []
        var periodStart = start
        for index in 0..<36 {
            let end = month.added(to: periodStart)
            let upgraded = index >= 20
            var fact = PurchaseFact(
                transactionId: "t\(index)", originalTransactionId: "t0",
                productId: upgraded ? "premium.monthly" : "pro.monthly", productType: .autoRenewable,
                subscriptionGroupIdentifier: "main", purchaseDate: periodStart, expiresDate: end,
                offer: index == 0 ? Offer(kind: .freeTrial) : nil,
                price: Money(milliunits: index == 0 ? 0 : upgraded ? 14_990 : 9_990, currency: "USD")
            )
            if index == 10 { fact.revocation = Revocation(date: end.addingTimeInterval(86_400 * 3), kind: .refund) }
            if index == 19 {
                let upgrade = periodStart.addingTimeInterval(86_400 * 12)
                fact.isUpgraded = true
                fact.revocation = Revocation(date: upgrade, kind: .upgrade)
                purchases.append(fact)
                periodStart = upgrade
                continue
            }
            purchases.append(fact)
            periodStart = end
        }
        for index in 0..<4 {
            let begin = start.addingTimeInterval(Double(index) * 30 * 86_400)
            purchases.append(
                PurchaseFact(
                    transactionId: "m\(index)", originalTransactionId: "m0", productId: "magazine.monthly",
                    productType: .autoRenewable, subscriptionGroupIdentifier: "magazine", purchaseDate: begin,
                    expiresDate: begin.addingTimeInterval(30 * 86_400)
                ))
        }
        purchases.append(PurchaseFact(transactionId: "n0", productId: "lifetime.themes", productType: .nonConsumable, purchaseDate: start))
        for index in 0..<2 {
            purchases.append(
                PurchaseFact(
                    transactionId: "p\(index)", productId: "season.pass", productType: .nonRenewing,
                    purchaseDate: start.addingTimeInterval(Double(index) * 10 * 86_400)
                ))
        }
        for index in 0..<12 {
            purchases.append(
                PurchaseFact(
                    transactionId: "c\(index)", productId: "coins.100", productType: .consumable,
                    purchaseDate: start.addingTimeInterval(Double(index) * 60 * 86_400), quantity: 1
                ))
        }
        let renewals = [
            RenewalFact(originalTransactionId: "t0", productId: "premium.monthly", autoRenewProductId: "pro.monthly", willAutoRenew: true),
            RenewalFact(originalTransactionId: "m0", productId: "magazine.monthly", willAutoRenew: false, expirationReason: .voluntary),
        ]
        history = PurchaseHistory(purchases: purchases, renewals: renewals)
        catalog = Catalog(products: [
            CatalogProduct(productId: "pro.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "main", entitlements: ["pro"], price: 9.99),
            CatalogProduct(
                productId: "premium.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "main", entitlements: ["pro", "premium"],
                price: 14.99),
            CatalogProduct(productId: "magazine.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "magazine", entitlements: ["magazine"]),
            CatalogProduct(productId: "lifetime.themes", type: .nonConsumable, entitlements: ["themes"]),
            CatalogProduct(productId: "season.pass", type: .nonRenewing, entitlements: ["season"], duration: ISO8601Duration(months: 3)),
            CatalogProduct(productId: "coins.100", type: .consumable),
        ])
        instants = (0..<64).map { start.addingTimeInterval(Double($0) * 17.3 * 86_400) }
    }

    /// The number of facts in the history.
    public var factCount: Int { history.purchases.count + history.renewals.count }

    /// Computes the customer's whole state (subscriptions, entitlements, eligibility, next looks)
    /// at one of the instants and returns how many entitlements it found, so the work cannot
    /// be optimized away.
    public func run(iteration: Int) -> Int {
        let instant = instants[abs(iteration % instants.count)]
        let state = CustomerState(history: history, catalog: catalog, at: instant, configuration: configuration)
        return state.entitlements.count + state.subscriptions.count
    }
}
