import Foundation

/// One SKU in an Advanced Commerce transaction.
public struct AdvancedCommerceTransactionItem: Codable, Hashable, Sendable {
    /// The developer-defined SKU.
    public var sku: String?

    /// The SKU's description shown to the customer.
    public var description: String?

    /// The SKU's name shown to the customer.
    public var displayName: String?

    /// The offer applied to the SKU.
    public var offer: AdvancedCommerceOffer?

    /// The SKU's price, in milliunits.
    public var price: Int64?

    /// Refunds granted for the SKU.
    public var refunds: [AdvancedCommerceRefund]?

    /// When the SKU was revoked.
    @AppStoreDate public var revocationDate: Date?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        sku: String? = nil,
        description: String? = nil,
        displayName: String? = nil,
        offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil,
        refunds: [AdvancedCommerceRefund]? = nil,
        revocationDate: Date? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.refunds = refunds
        self.revocationDate = revocationDate
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description
        case displayName
        case offer
        case price
        case refunds
        case revocationDate
    }
}
