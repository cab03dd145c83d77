/// A SKU in a request to create an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionCreateItem: Codable, Hashable, Sendable {
    /// The SKU's description (at most 45 characters).
    public var description: String

    /// The SKU's display name (at most 30 characters).
    public var displayName: String

    /// An offer to apply.
    public var offer: AdvancedCommerceOffer?

    /// The price per period, in milliunits.
    public var price: Int64

    /// Your SKU (at most 128 characters).
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        description: String,
        displayName: String,
        offer: AdvancedCommerceOffer? = nil,
        price: Int64,
        sku: String
    ) {
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case description
        case displayName
        case offer
        case price
        case sku = "SKU"
    }
}
