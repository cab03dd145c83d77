import Foundation

/// One product of the app's catalog.
public struct CatalogProduct: Sendable, Hashable, Codable {
    /// The App Store product id.
    public var productId: String
    /// What kind of product it is.
    public var type: ProductKind
    /// The subscription group of an auto-renewable subscription. Non-renewing subscriptions
    /// may name one too: purchases sharing it stack into one continuous access period.
    public var subscriptionGroupIdentifier: String?
    /// The entitlements the product grants; `nil` means "the product id itself".
    public var entitlements: [String]?
    /// How long a non-renewing subscription lasts, as an ISO 8601 duration such as `P1M`.
    public var duration: ISO8601Duration?
    /// An auto-renewable subscription's billing period (`P1W`, `P1M`, `P1Y` …), for analytics'
    /// monthly normalization; when absent, a period's purchase and expiry dates tell it.
    public var subscriptionPeriod: ISO8601Duration?
    /// The customer price in ``currency`` (for sources that do not carry prices), e.g. `9.99`.
    public var price: Double?
    /// The currency of ``price``; `USD` when absent.
    public var currency: String?

    public init(
        productId: String,
        type: ProductKind,
        subscriptionGroupIdentifier: String? = nil,
        entitlements: [String]? = nil,
        duration: ISO8601Duration? = nil,
        price: Double? = nil,
        currency: String? = nil,
        subscriptionPeriod: ISO8601Duration? = nil
    ) {
        self.productId = productId
        self.type = type
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.entitlements = entitlements
        self.duration = duration
        self.price = price
        self.currency = currency
        self.subscriptionPeriod = subscriptionPeriod
    }

    /// The catalog price as ``Money``, when the catalog has one.
    public var listPrice: Money? {
        guard let price, price.isFinite, price >= 0, price < 1e12 else { return nil }
        return Money(milliunits: Int64((price * 1000).rounded()), currency: currency ?? "USD")
    }
}
