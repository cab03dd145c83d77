import AppStoreModels
import Foundation

/// One product of the simulated app, as App Store Connect would define it.
public struct SimulatedProduct: Sendable, Hashable, Codable {
    public var productId: String
    /// `Auto-Renewable Subscription`, `Non-Renewing Subscription`, `Consumable` or `Non-Consumable`.
    public var type: ProductType
    /// The subscription group of an auto-renewable subscription.
    public var subscriptionGroupIdentifier: String?
    /// Apple's service level inside the group: 1 is the highest. Moving to a smaller number is an
    /// upgrade (immediate), to a larger one a downgrade (at the next renewal).
    public var level: Int?
    /// The period of a subscription (`P1W`, `P1M`, `P3M`, `P6M`, `P1Y`).
    public var period: String?
    /// The price in milliunits of ``currency``.
    public var price: Int64
    public var currency: String
    /// The price in other currencies, in their milliunits (a storefront whose currency is not
    /// listed pays ``price`` in ``currency``).
    public var localPrices: [String: Int64]?
    /// Days of a free-trial introductory offer, when the product has one.
    public var freeTrialDays: Int?
    /// Whether Family Sharing is on for the product.
    public var familyShareable: Bool
    /// How demand falls with the price, for customers shown the product on a paywall: they buy
    /// with a base probability × (reference price / price) ^ elasticity. `nil` or 0: price does
    /// not matter.
    public var priceElasticity: Double?
    /// How much a free trial draws customers shown the product: × this when it has a trial
    /// (`nil`: 1).
    public var trialAppetite: Double?
    /// A one-year product's monthly plan with a 12-month commitment: the monthly price in each
    /// currency's milliunits (absent: the product has no such plan).
    public var monthlyCommitmentPrices: [String: Int64]?

    public init(
        productId: String, type: ProductType, subscriptionGroupIdentifier: String? = nil, level: Int? = nil, period: String? = nil,
        price: Int64, currency: String = "USD", localPrices: [String: Int64]? = nil, freeTrialDays: Int? = nil,
        familyShareable: Bool = false
    ) {
        self.productId = productId
        self.type = type
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.level = level
        self.period = period
        self.price = price
        self.currency = currency
        self.localPrices = localPrices
        self.freeTrialDays = freeTrialDays
        self.familyShareable = familyShareable
    }

    /// The chance that a customer shown this product first on a paywall buys it: `base` scaled by
    /// the price against `referencePrice` (``priceElasticity``) and by ``trialAppetite`` when the
    /// product has a free trial; between 0 and 1.
    public func purchaseProbability(base: Double, referencePrice: Int64) -> Double {
        var probability = base
        if let elasticity = priceElasticity, elasticity != 0, price > 0, referencePrice > 0 {
            probability *= pow(Double(referencePrice) / Double(price), elasticity)
        }
        if (freeTrialDays ?? 0) > 0 { probability *= trialAppetite ?? 1 }
        return min(1, max(0, probability))
    }

    /// What a customer in `storefront` pays: the local price in its currency, else the base price.
    public func price(in storefront: SimulatedStorefront) -> (milliunits: Int64, currency: String) {
        if storefront.currency == currency { return (price, currency) }
        if let local = localPrices?[storefront.currency] { return (local, storefront.currency) }
        return (price, currency)
    }

    /// The monthly price of the 12-month commitment plan for `storefront`, when the product has one.
    public func monthlyCommitmentPrice(in storefront: SimulatedStorefront) -> (milliunits: Int64, currency: String)? {
        guard period == "P1Y", let prices = monthlyCommitmentPrices else { return nil }
        if let local = prices[storefront.currency] { return (local, storefront.currency) }
        return prices[currency].map { ($0, currency) }
    }

    /// The end of one period that starts at `start` (calendar arithmetic in UTC, as Apple bills).
    public func periodEnd(from start: Date) -> Date {
        Self.add(period ?? "P1M", to: start)
    }

    /// The length of a period in Apple's sandbox, which compresses renewal periods (1 week → 3
    /// minutes, 1 month → 5, 2 months → 10, 3 months → 15, 6 months → 30, 1 year → 1 hour).
    public static func sandboxSeconds(of period: String) -> TimeInterval {
        switch period {
        case "P1W", "P7D": 180
        case "P1M": 300
        case "P2M": 600
        case "P3M": 900
        case "P6M": 1_800
        case "P1Y": 3_600
        default: 300
        }
    }

    /// Adds an ISO 8601 period of whole days, weeks, months or years to a date in UTC.
    static func add(_ period: String, to date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let body = period.dropFirst()
        guard period.first == "P", let unit = body.last, let count = Int(body.dropLast()), count > 0 else {
            return date.addingTimeInterval(30 * 86_400)
        }
        var components = DateComponents()
        switch unit {
        case "D": components.day = count
        case "W": components.day = 7 * count
        case "M": components.month = count
        case "Y": components.year = count
        default: components.day = 30
        }
        return calendar.date(byAdding: components, to: date) ?? date.addingTimeInterval(30 * 86_400)
    }

    /// The catalog the demo sells: three subscriptions in one group (two levels, two durations),
    /// a consumable, a non-consumable and a non-renewing season pass, priced in US dollars,
    /// euros, pounds and yen (App Store price points of each storefront).
    public static let demoCatalog: [SimulatedProduct] = [
        SimulatedProduct(
            productId: "premium.monthly", type: .autoRenewableSubscription, subscriptionGroupIdentifier: "21000001", level: 2, period: "P1M",
            price: 9_990, localPrices: ["EUR": 9_990, "GBP": 8_990, "JPY": 1_500_000], freeTrialDays: 7, familyShareable: true),
        SimulatedProduct(
            productId: "premium.yearly", type: .autoRenewableSubscription, subscriptionGroupIdentifier: "21000001", level: 2, period: "P1Y",
            price: 79_990, localPrices: ["EUR": 79_990, "GBP": 69_990, "JPY": 12_000_000], familyShareable: true
        ).withMonthlyCommitment(["USD": 7_490, "EUR": 7_490, "GBP": 6_490, "JPY": 1_100_000]),
        SimulatedProduct(
            productId: "pro.monthly", type: .autoRenewableSubscription, subscriptionGroupIdentifier: "21000001", level: 1, period: "P1M",
            price: 14_990, localPrices: ["EUR": 14_990, "GBP": 12_990, "JPY": 2_200_000], familyShareable: true),
        SimulatedProduct(
            productId: "coins.100", type: .consumable, price: 990, localPrices: ["EUR": 990, "GBP": 890, "JPY": 150_000]),
        SimulatedProduct(
            productId: "themes.lifetime", type: .nonConsumable, price: 4_990, localPrices: ["EUR": 4_990, "GBP": 4_490, "JPY": 750_000]),
        SimulatedProduct(
            productId: "season.pass", type: .nonRenewingSubscription, period: "P3M", price: 19_990,
            localPrices: ["EUR": 19_990, "GBP": 17_990, "JPY": 3_000_000]),
    ]

    /// This product with a monthly plan with a 12-month commitment at `prices`.
    public func withMonthlyCommitment(_ prices: [String: Int64]) -> SimulatedProduct {
        var copy = self
        copy.monthlyCommitmentPrices = prices
        return copy
    }
}
