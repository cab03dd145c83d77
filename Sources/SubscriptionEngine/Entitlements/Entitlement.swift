import Foundation

/// Access the customer has at an instant, named by the catalog's entitlement identifier.
public struct Entitlement: Sendable, Hashable, Codable {
    /// The entitlement's identifier from the catalog (the product id when the catalog has none).
    public var identifier: String
    /// The product granting it.
    public var productId: String
    /// What kind of product grants it.
    public var productType: ProductKind
    /// The transaction granting it (for a subscription: the current period).
    public var transactionId: String
    /// The chain of the granting transaction.
    public var originalTransactionId: String
    /// When the granting transaction or stacked run of purchases began.
    public var startDate: Date
    /// When access ends; `nil` for a non-consumable, owned until revoked.
    public var expiresDate: Date?
    /// Bought by the customer or shared by a family member.
    public var ownership: Ownership
    /// How the access is justified.
    public var basis: EntitlementBasis

    public init(
        identifier: String, productId: String, productType: ProductKind, transactionId: String,
        originalTransactionId: String, startDate: Date, expiresDate: Date?, ownership: Ownership,
        basis: EntitlementBasis
    ) {
        self.identifier = identifier
        self.productId = productId
        self.productType = productType
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.startDate = startDate
        self.expiresDate = expiresDate
        self.ownership = ownership
        self.basis = basis
    }
}
