/// A discount applied to an Advanced Commerce SKU for a number of periods.
///
/// Fields are optional so a signed transaction with a partial offer still decodes; requests
/// should set all four.
public struct AdvancedCommerceOffer: Codable, Hashable, Sendable {
    /// The length of one offer period.
    public var period: AdvancedCommerceOfferPeriod?

    /// The number of offer periods (1 to 12).
    public var periodCount: Int32?

    /// The offer price per period, in milliunits.
    public var price: Int64?

    /// Why the offer is given.
    public var reason: AdvancedCommerceOfferReason?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        period: AdvancedCommerceOfferPeriod? = nil,
        periodCount: Int32? = nil,
        price: Int64? = nil,
        reason: AdvancedCommerceOfferReason? = nil
    ) {
        self.period = period
        self.periodCount = periodCount
        self.price = price
        self.reason = reason
    }
}
