/// A SKU to add to an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionModifyAddItem: Codable, Hashable, Sendable {
    /// The SKU's description.
    public var description: String

    /// The SKU's display name.
    public var displayName: String

    /// An offer to apply.
    public var offer: AdvancedCommerceOffer?

    /// The price per period, in milliunits.
    public var price: Int64

    /// The prorated price for the current period, in milliunits.
    public var proratedPrice: Int64?

    /// Your SKU.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        description: String,
        displayName: String,
        offer: AdvancedCommerceOffer? = nil,
        price: Int64,
        proratedPrice: Int64? = nil,
        sku: String
    ) {
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.proratedPrice = proratedPrice
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case description
        case displayName
        case offer
        case price
        case proratedPrice
        case sku = "SKU"
    }
}
