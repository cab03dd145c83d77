/// The SKU of an Advanced Commerce one-time charge.
public struct AdvancedCommerceOneTimeChargeItem: Codable, Hashable, Sendable {
    /// The SKU's description (at most 45 characters).
    public var description: String

    /// The SKU's display name (at most 30 characters).
    public var displayName: String

    /// Your SKU (at most 128 characters).
    public var sku: String

    /// The price, in milliunits.
    public var price: Int64

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String, displayName: String, sku: String, price: Int64) {
        self.description = description
        self.displayName = displayName
        self.sku = sku
        self.price = price
    }

    private enum CodingKeys: String, CodingKey {
        case description
        case displayName
        case sku = "SKU"
        case price
    }
}
