/// A metadata change for one SKU of a subscription.
public struct AdvancedCommerceSubscriptionChangeMetadataItem: Codable, Hashable, Sendable {
    /// The SKU to change.
    public var currentSku: String

    /// The new description.
    public var description: String?

    /// The new display name.
    public var displayName: String?

    /// When the change takes effect.
    public var effective: AdvancedCommerceEffective

    /// A new SKU identifier.
    public var sku: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        currentSku: String,
        description: String? = nil,
        displayName: String? = nil,
        effective: AdvancedCommerceEffective,
        sku: String? = nil
    ) {
        self.currentSku = currentSku
        self.description = description
        self.displayName = displayName
        self.effective = effective
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case currentSku = "currentSKU"
        case description
        case displayName
        case effective
        case sku = "SKU"
    }
}
