/// A new price for one SKU.
public struct AdvancedCommerceSubscriptionPriceChangeItem: Codable, Hashable, Sendable {
    /// The SKU.
    public var sku: String

    /// The new price, in milliunits.
    public var price: Int64

    /// Other SKUs whose price changes with this one.
    public var dependentSKUs: [String]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(sku: String, price: Int64, dependentSKUs: [String]? = nil) {
        self.sku = sku
        self.price = price
        self.dependentSKUs = dependentSKUs
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case price
        case dependentSKUs
    }
}
