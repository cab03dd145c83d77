/// One SKU of an Advanced Commerce subscription's next renewal.
public struct AdvancedCommerceRenewalItem: Codable, Hashable, Sendable {
    /// The developer-defined SKU.
    public var sku: String?

    /// The SKU's description shown to the customer.
    public var description: String?

    /// The SKU's name shown to the customer.
    public var displayName: String?

    /// The offer that applies at renewal.
    public var offer: AdvancedCommerceOffer?

    /// The renewal price, in milliunits.
    public var price: Int64?

    /// A price increase affecting the SKU.
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        sku: String? = nil,
        description: String? = nil,
        displayName: String? = nil,
        offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil,
        priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.priceIncreaseInfo = priceIncreaseInfo
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description
        case displayName
        case offer
        case price
        case priceIncreaseInfo
    }
}
