import Foundation

/// The money of one transaction: what the customer paid, what Apple kept, what came back.
public struct TransactionRevenue: Sendable, Hashable, Codable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    public var purchaseDate: Date
    /// What the customer paid; `nil` when neither the source nor the catalog gives a price.
    public var price: Money?
    /// Apple's commission on this sale, in basis points (3 000 = 30 %).
    public var commissionRate: Int
    /// The part of the price refunded by the instant (all of it for a full refund, the
    /// percentage of a prorated one, the unused part of a period upgraded away from).
    public var refunded: Money?
    /// The developer's proceeds after the refund and Apple's commission.
    public var proceeds: Money?
    /// Paid service the subscriber had accumulated in the group before this period.
    public var paidServiceBefore: TimeInterval

    public init(
        transactionId: String, originalTransactionId: String, productId: String, purchaseDate: Date,
        price: Money?, commissionRate: Int, refunded: Money?, proceeds: Money?, paidServiceBefore: TimeInterval
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.price = price
        self.commissionRate = commissionRate
        self.refunded = refunded
        self.proceeds = proceeds
        self.paidServiceBefore = paidServiceBefore
    }
}
