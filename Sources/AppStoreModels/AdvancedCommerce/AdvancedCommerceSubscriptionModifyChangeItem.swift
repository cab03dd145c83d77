/// A SKU that replaces another in an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionModifyChangeItem: Codable, Hashable, Sendable {
    /// The SKU being replaced.
    public var currentSku: String

    /// The new SKU's description.
    public var description: String

    /// The new SKU's display name.
    public var displayName: String

    /// When the change takes effect.
    public var effective: AdvancedCommerceEffective

    /// An offer to apply.
    public var offer: AdvancedCommerceOffer?

    /// The price per period, in milliunits.
    public var price: Int64

    /// The prorated price for the current period, in milliunits.
    public var proratedPrice: Int64?

    /// Why the SKU changes.
    public var reason: AdvancedCommerceReason

    /// The new SKU.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        currentSku: String,
        description: String,
        displayName: String,
        effective: AdvancedCommerceEffective,
        offer: AdvancedCommerceOffer? = nil,
        price: Int64,
        proratedPrice: Int64? = nil,
        reason: AdvancedCommerceReason,
        sku: String
    ) {
        self.currentSku = currentSku
        self.description = description
        self.displayName = displayName
        self.effective = effective
        self.offer = offer
        self.price = price
        self.proratedPrice = proratedPrice
        self.reason = reason
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case currentSku = "currentSKU"
        case description
        case displayName
        case effective
        case offer
        case price
        case proratedPrice
        case reason
        case sku = "SKU"
    }
}
