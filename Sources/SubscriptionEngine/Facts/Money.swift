import Foundation

/// An amount of money in Apple's milliunits (1/1000 of the currency's unit: 9.99 USD is 9 990).
///
/// Integer milliunits keep arithmetic exact, as in StoreKit 2's `price` field.
public struct Money: Sendable, Hashable, Codable {
    /// The amount in milliunits of ``currency``.
    public var milliunits: Int64
    /// The ISO 4217 currency code, such as `USD`.
    public var currency: String

    public init(milliunits: Int64, currency: String) {
        self.milliunits = milliunits
        self.currency = currency
    }

    /// Zero in `currency`.
    public static func zero(_ currency: String) -> Money { Money(milliunits: 0, currency: currency) }

    /// This amount scaled by `numerator / denominator`, rounded half away from zero. Returns zero
    /// for a non-positive denominator.
    public func scaled(by numerator: Int64, over denominator: Int64) -> Money {
        guard denominator > 0 else { return .zero(currency) }
        let (product, overflow) = milliunits.multipliedReportingOverflow(by: numerator)
        if overflow {
            let scaled = (Double(milliunits) * Double(numerator) / Double(denominator)).rounded()
            return Money(milliunits: Int64(exactly: scaled) ?? (scaled > 0 ? .max : .min), currency: currency)
        }
        let half = denominator / 2
        let rounded = product >= 0 ? (product + half) / denominator : (product - half) / denominator
        return Money(milliunits: rounded, currency: currency)
    }
}
