/// A SKU of a migrated subscription.
public struct AdvancedCommerceSubscriptionMigrateItem: Codable, Hashable, Sendable {
    /// The SKU's description.
    public var description: String

    /// The SKU's display name.
    public var displayName: String

    /// The SKU.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String, displayName: String, sku: String) {
        self.description = description
        self.displayName = displayName
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case description
        case displayName
        case sku = "SKU"
    }
}
