/// Totals in one currency.
public struct RevenueTotal: Sendable, Hashable, Codable {
    public var currency: String
    /// Sum of prices.
    public var gross: Money
    /// Sum of refunds.
    public var refunded: Money
    /// Sum of proceeds after refunds and commission.
    public var proceeds: Money

    public init(currency: String, gross: Money, refunded: Money, proceeds: Money) {
        self.currency = currency
        self.gross = gross
        self.refunded = refunded
        self.proceeds = proceeds
    }
}
