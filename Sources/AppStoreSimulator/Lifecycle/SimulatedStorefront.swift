import Foundation

/// An App Store storefront customers buy in: its country (ISO 3166-1 alpha-3, as Apple's
/// `storefront` field), Apple's storefront id, the currency its prices are in, and the share of
/// the population living there.
public struct SimulatedStorefront: Sendable, Hashable, Codable {
    public var country: String
    public var id: String
    public var currency: String
    /// The share of customers in this storefront (relative to the other storefronts' shares).
    public var share: Double

    public init(country: String, id: String, currency: String, share: Double) {
        self.country = country
        self.id = id
        self.currency = currency
        self.share = share
    }

    public static let unitedStates = SimulatedStorefront(country: "USA", id: "143441", currency: "USD", share: 1)

    /// The demo's customers: most in the United States, the rest in Germany, the United Kingdom
    /// and Japan, each paying the demo catalog's price in its own currency.
    public static let demoMix: [SimulatedStorefront] = [
        SimulatedStorefront(country: "USA", id: "143441", currency: "USD", share: 0.55),
        SimulatedStorefront(country: "DEU", id: "143443", currency: "EUR", share: 0.2),
        SimulatedStorefront(country: "GBR", id: "143444", currency: "GBP", share: 0.15),
        SimulatedStorefront(country: "JPN", id: "143462", currency: "JPY", share: 0.1),
    ]

    /// The demo's exchange-rate table for a USD report: units of USD per unit of each currency.
    public static let demoExchangeRates: [String: Decimal] = [
        "EUR": Decimal(108) / 100, "GBP": Decimal(127) / 100, "JPY": Decimal(67) / 10_000,
    ]

    /// The storefront of customer number `customer`, drawn with the customer's own random stream
    /// (so the storefronts do not change any other choice of a run).
    static func of(customer: Int, among storefronts: [SimulatedStorefront], seed: UInt64) -> SimulatedStorefront {
        guard storefronts.count > 1 else { return storefronts.first ?? .unitedStates }
        var random = SeededRandom.derived(seed: seed, "storefront-\(customer)")
        let total = storefronts.reduce(0) { $0 + max(0, $1.share) }
        var roll = Double.random(in: 0..<max(total, .leastNonzeroMagnitude), using: &random)
        for storefront in storefronts {
            roll -= max(0, storefront.share)
            if roll < 0 { return storefront }
        }
        return storefronts[storefronts.count - 1]
    }
}
