import Foundation

/// One consumable purchase in the customer's log. Consumables grant no lasting access; the app
/// credits them once, by transaction id.
public struct ConsumablePurchase: Sendable, Hashable, Codable {
    public var transactionId: String
    public var productId: String
    public var purchaseDate: Date
    public var quantity: Int
    /// The refund or revocation, when Apple took the purchase back by the instant.
    public var revocation: Revocation?

    public init(transactionId: String, productId: String, purchaseDate: Date, quantity: Int, revocation: Revocation?) {
        self.transactionId = transactionId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.quantity = quantity
        self.revocation = revocation
    }
}
