import Foundation

/// The app's products: what each is, which subscription group it belongs to, which
/// entitlements it grants, and (for non-renewing subscriptions) how long it lasts.
///
/// Read from JSON shaped `{"products": [{"productId", "type", "subscriptionGroupIdentifier",
/// "entitlements", "duration", "subscriptionPeriod", "price", "currency"}]}`; everything but `productId` and `type`
/// is optional. Facts name products the catalog may not know; the engine then relies on what
/// the fact itself says (StoreKit 2 carries type and group) and reports the gap.
public struct Catalog: Sendable, Hashable, Codable {
    /// The products, in the order given.
    public var products: [CatalogProduct]
    private var index: [String: Int]

    public init(products: [CatalogProduct] = []) {
        self.products = products
        var index: [String: Int] = [:]
        for (offset, product) in products.enumerated() where index[product.productId] == nil {
            index[product.productId] = offset
        }
        self.index = index
    }

    /// A catalog with no products.
    public static let empty = Catalog()

    /// The product with this id, if the catalog has it (the first one when listed twice).
    public func product(_ productId: String) -> CatalogProduct? {
        index[productId].map { products[$0] }
    }

    /// Every subscription group the catalog names, sorted.
    public var subscriptionGroups: [String] {
        Array(Set(products.compactMap { $0.type == .autoRenewable ? $0.subscriptionGroupIdentifier : nil })).sorted()
    }

    /// The entitlements `productId` grants: the catalog's list, or the product id itself when
    /// the catalog does not know the product or lists no entitlements for it.
    public func entitlements(of productId: String) -> [String] {
        guard let listed = product(productId)?.entitlements else { return [productId] }
        return listed
    }

    private enum CodingKeys: String, CodingKey { case products }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(products: try container.decodeIfPresent([CatalogProduct].self, forKey: .products) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(products, forKey: .products)
    }
}
