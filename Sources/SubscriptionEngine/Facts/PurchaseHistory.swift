import Foundation

/// Everything known about one customer's purchases: normalized, deduplicated facts.
///
/// Facts arrive from any source in any order; adding them is commutative and idempotent, so
/// the history (and every state computed from it) does not depend on arrival order or on
/// how many times a fact was seen. Purchases are keyed by transaction id, renewal facts by
/// original transaction id, manual revocations by the transaction they revoke.
public struct PurchaseHistory: Sendable, Hashable {
    /// Purchases by transaction id.
    public private(set) var purchases: [String: PurchaseFact] = [:]
    /// Renewal facts by original transaction id: the latest signed of each chain.
    public private(set) var renewals: [String: RenewalFact] = [:]
    /// Every dated renewal fact by original transaction id, oldest signed first (facts signed at
    /// the same instant merged): what Apple said when, so a state at a past instant can be told
    /// from what Apple said then and not only from what it says now.
    public private(set) var renewalTimeline: [String: [RenewalFact]] = [:]
    /// Revocations made by the app's operator, by transaction id; they apply even when the
    /// purchase they name arrives later.
    public private(set) var manualRevocations: [String: Revocation] = [:]

    public init() {}

    public init(purchases: [PurchaseFact] = [], renewals: [RenewalFact] = []) {
        add(purchases)
        add(renewals)
    }

    /// Adds a purchase, merging it with what is known about the same transaction.
    public mutating func add(_ purchase: PurchaseFact) {
        if let known = purchases[purchase.transactionId] {
            purchases[purchase.transactionId] = known.merged(with: purchase)
        } else {
            purchases[purchase.transactionId] = purchase
        }
    }

    /// Adds purchases.
    public mutating func add(_ newPurchases: [PurchaseFact]) {
        for purchase in newPurchases { add(purchase) }
    }

    /// Adds a renewal fact, keeping the latest signed per chain.
    public mutating func add(_ renewal: RenewalFact) {
        if let known = renewals[renewal.originalTransactionId] {
            renewals[renewal.originalTransactionId] = known.merged(with: renewal)
        } else {
            renewals[renewal.originalTransactionId] = renewal
        }
        guard let signed = renewal.signedDate else { return }
        var timeline = renewalTimeline[renewal.originalTransactionId] ?? []
        let index = timeline.firstIndex { ($0.signedDate ?? .distantPast) >= signed } ?? timeline.endIndex
        if index < timeline.endIndex, timeline[index].signedDate == signed {
            timeline[index] = timeline[index].merged(with: renewal)
        } else {
            timeline.insert(renewal, at: index)
        }
        renewalTimeline[renewal.originalTransactionId] = timeline
    }

    /// Adds renewal facts.
    public mutating func add(_ newRenewals: [RenewalFact]) {
        for renewal in newRenewals { add(renewal) }
    }

    /// Records the operator revoking a transaction (or a manual grant) at `date`.
    public mutating func revoke(transactionId: String, at date: Date, kind: RevocationKind = .manual) {
        let revocation = Revocation(date: date, kind: kind)
        if let known = manualRevocations[transactionId],
            known.date < date || (known.date == date && known.kind.rawValue <= kind.rawValue)
        {
            return
        }
        manualRevocations[transactionId] = revocation
    }

    /// Everything in `self` and `other`.
    public func merging(_ other: PurchaseHistory) -> PurchaseHistory {
        var result = self
        result.add(other)
        return result
    }

    /// Adds every fact of `other`.
    public mutating func add(_ other: PurchaseHistory) {
        add(Array(other.purchases.values))
        add(Array(other.renewals.values))
        for timeline in other.renewalTimeline.values { add(timeline) }
        for (id, revocation) in other.manualRevocations {
            revoke(transactionId: id, at: revocation.date, kind: revocation.kind)
        }
    }

    /// The purchases with manual revocations applied (an earlier Apple revocation is kept).
    public var effectivePurchases: [PurchaseFact] {
        guard !manualRevocations.isEmpty else { return Array(purchases.values) }
        return purchases.values.map { purchase in
            guard let manual = manualRevocations[purchase.transactionId] else { return purchase }
            var revoked = purchase
            if let apple = purchase.revocation, apple.removesAccess, apple.date <= manual.date { return purchase }
            revoked.revocation = manual
            revoked.isUpgraded = false
            return revoked
        }
    }
}
