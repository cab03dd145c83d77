import SubscriptionEngine

extension PurchaseHistory {
    /// The facts of one of Apple's environments: purchases whose data says `environment` (a fact
    /// that does not say, such as a grant or a row an earlier version recorded, counts as
    /// `Production`), the renewal facts of their chains, and the revocations of their transactions.
    public func restricted(to environment: String) -> PurchaseHistory {
        restricted { ($0.environment ?? "Production") == environment }
    }

    /// The purchases `keep` accepts, with the renewal facts of their chains and the revocations
    /// of their transactions.
    public func restricted(_ keep: (PurchaseFact) -> Bool) -> PurchaseHistory {
        let kept = purchases.values.filter(keep)
        guard kept.count != purchases.count else { return self }
        var result = PurchaseHistory()
        result.add(kept)
        let chains = Set(kept.map(\.originalTransactionId))
        result.add(renewals.values.filter { chains.contains($0.originalTransactionId) })
        for (chain, timeline) in renewalTimeline where chains.contains(chain) { result.add(timeline) }
        let transactions = Set(kept.map(\.transactionId))
        for (transactionId, revocation) in manualRevocations where transactions.contains(transactionId) {
            result.revoke(transactionId: transactionId, at: revocation.date, kind: revocation.kind)
        }
        return result
    }
}
