import Foundation

extension PurchaseFact {
    /// Combines two facts about the same transaction from different sources.
    ///
    /// The fact signed later is authoritative: its fields win, and its revocation state wins
    /// even when it has none (Apple reversed a refund). Unsigned facts (legacy sources) are
    /// older than any signed one; among unsigned facts a revocation is never dropped, because
    /// only signed data can reverse one. Fields one source lacks are filled from the other.
    /// The result does not depend on the order of the two arguments.
    public func merged(with other: PurchaseFact) -> PurchaseFact {
        let (older, newer) = PurchaseFact.ordered(self, other)
        var result = newer
        result.originalTransactionId = newer.originalTransactionId
        result.productType = newer.productType ?? older.productType
        result.subscriptionGroupIdentifier = newer.subscriptionGroupIdentifier ?? older.subscriptionGroupIdentifier
        result.originalPurchaseDate = newer.originalPurchaseDate ?? older.originalPurchaseDate
        result.expiresDate = newer.expiresDate ?? older.expiresDate
        result.offer = newer.offer ?? older.offer
        result.price = newer.price ?? older.price
        result.webOrderLineItemId = newer.webOrderLineItemId ?? older.webOrderLineItemId
        result.environment = newer.environment ?? older.environment
        result.storefront = newer.storefront ?? older.storefront
        result.billingPlanType = newer.billingPlanType ?? older.billingPlanType
        result.commitment = newer.commitment ?? older.commitment
        result.isUpgraded = newer.isUpgraded || older.isUpgraded
        if newer.signedDate != nil, newer.signedDate != older.signedDate {
            result.revocation = newer.revocation
        } else {
            result.revocation = PurchaseFact.earlier(newer.revocation, older.revocation)
        }
        return result
    }

    /// Orders two facts oldest first: by signed date (unsigned first), then by a total order on
    /// their content so that equal dates still give one answer whatever the argument order.
    private static func ordered(_ a: PurchaseFact, _ b: PurchaseFact) -> (PurchaseFact, PurchaseFact) {
        let da = a.signedDate ?? .distantPast
        let db = b.signedDate ?? .distantPast
        if da != db { return da < db ? (a, b) : (b, a) }
        return String(describing: a) <= String(describing: b) ? (a, b) : (b, a)
    }

    private static func earlier(_ a: Revocation?, _ b: Revocation?) -> Revocation? {
        switch (a, b) {
        case (nil, nil): return nil
        case (let x?, nil), (nil, let x?): return x
        case (let x?, let y?):
            if x.date != y.date { return x.date < y.date ? x : y }
            return String(describing: x) <= String(describing: y) ? x : y
        }
    }
}
