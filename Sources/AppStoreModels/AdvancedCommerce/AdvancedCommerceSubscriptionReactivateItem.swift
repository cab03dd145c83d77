/// A SKU to reactivate.
public struct AdvancedCommerceSubscriptionReactivateItem: Codable, Hashable, Sendable {
    /// The SKU.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(sku: String) {
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
    }
}
