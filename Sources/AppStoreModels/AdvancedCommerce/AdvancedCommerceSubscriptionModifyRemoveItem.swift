/// A SKU to remove from an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionModifyRemoveItem: Codable, Hashable, Sendable {
    /// The SKU to remove.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(sku: String) {
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
    }
}
