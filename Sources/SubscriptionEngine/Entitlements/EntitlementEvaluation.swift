import Foundation

/// Turns purchases into entitlements: subscriptions (one per group), stacked non-renewing
/// runs, non-consumables.
struct EntitlementEvaluation {
    let catalog: Catalog
    let instant: Date
    let configuration: EngineConfiguration

    /// The entitlements of the subscriptions that give access, one subscription per group.
    func subscriptionEntitlements(_ states: [SubscriptionState]) -> [Entitlement] {
        var winners: [String: (SubscriptionState, Date?, EntitlementBasis)] = [:]
        for state in states {
            let basis: EntitlementBasis
            var end = state.accessEndsDate
            switch state.status {
            case .active: basis = .purchase
            case .gracePeriod: basis = .gracePeriod
            case .expired:
                guard let allowance = configuration.offlineAllowance, state.expirationReason == nil,
                    state.willAutoRenew != false, let ends = state.accessEndsDate,
                    instant < ends.addingTimeInterval(allowance.duration)
                else { continue }
                basis = .offlineAllowance
                end = ends.addingTimeInterval(allowance.duration)
            case .billingRetry, .revoked: continue
            }
            let key = state.subscriptionGroupIdentifier ?? "chain:" + state.originalTransactionId
            if let known = winners[key], !Self.better(state, end, than: known.0, known.1) { continue }
            winners[key] = (state, end, basis)
        }
        return winners.values.flatMap { state, end, basis in
            catalog.entitlements(of: state.productId).map {
                Entitlement(
                    identifier: $0, productId: state.productId, productType: .autoRenewable,
                    transactionId: state.transactionId, originalTransactionId: state.originalTransactionId,
                    startDate: state.purchaseDate, expiresDate: end, ownership: state.ownership, basis: basis
                )
            }
        }
    }

    private static func better(_ a: SubscriptionState, _ endA: Date?, than b: SubscriptionState, _ endB: Date?) -> Bool {
        if a.status != b.status { return a.status == .active }
        let ea = endA ?? .distantFuture
        let eb = endB ?? .distantFuture
        if ea != eb { return ea > eb }
        if a.ownership != b.ownership { return a.ownership == .purchased }
        return a.originalTransactionId < b.originalTransactionId
    }

    /// Non-renewing purchases stacked per group (or per product): each starts when it was
    /// bought or when the previous one ends, whichever is later, and lasts its duration.
    func nonRenewingEntitlements(_ purchases: [PurchaseFact], diagnostics: inout [Diagnostic]) -> [Entitlement] {
        var stacks: [String: [PurchaseFact]] = [:]
        for purchase in purchases where purchase.purchaseDate <= instant && !purchase.isRevoked(at: instant) {
            let key = catalog.product(purchase.productId)?.subscriptionGroupIdentifier ?? purchase.subscriptionGroupIdentifier ?? purchase.productId
            stacks[key, default: []].append(purchase)
        }
        var result: [Entitlement] = []
        for (_, stack) in stacks {
            var runs: [(start: Date, end: Date, covering: PurchaseFact?)] = []
            for purchase in stack.sorted(by: PurchaseFact.chronologically) {
                let duration = catalog.product(purchase.productId)?.duration
                guard purchase.expiresDate != nil || duration != nil else {
                    diagnostics.append(
                        Diagnostic(
                            code: .missingDuration, productId: purchase.productId, transactionId: purchase.transactionId,
                            message: "Non-renewing purchase without a duration; add the product's duration to the catalog."
                        ))
                    continue
                }
                let start: Date
                var end: Date
                if let explicit = purchase.expiresDate {
                    start = purchase.purchaseDate
                    end = explicit
                } else {
                    start = max(purchase.purchaseDate, runs.last?.end ?? purchase.purchaseDate)
                    end = duration.map { $0.added(to: start) } ?? start
                }
                if let revocation = purchase.revocation, revocation.removesAccess { end = min(end, revocation.date) }
                guard end > start else { continue }
                let covers = start <= instant && instant < end
                if let last = runs.last, start <= last.end {
                    runs[runs.count - 1].end = max(last.end, end)
                    if covers { runs[runs.count - 1].covering = purchase }
                } else {
                    runs.append((start, end, covers ? purchase : nil))
                }
            }
            guard let run = runs.first(where: { $0.start <= instant && instant < $0.end }), let purchase = run.covering else { continue }
            for identifier in catalog.entitlements(of: purchase.productId) {
                result.append(
                    Entitlement(
                        identifier: identifier, productId: purchase.productId, productType: .nonRenewing,
                        transactionId: purchase.transactionId, originalTransactionId: purchase.originalTransactionId,
                        startDate: run.start, expiresDate: run.end, ownership: purchase.ownership, basis: .purchase
                    ))
            }
        }
        return result
    }

    /// Non-consumables bought by the instant and not revoked: owned with no end.
    func nonConsumableEntitlements(_ purchases: [PurchaseFact]) -> [Entitlement] {
        purchases.filter { $0.purchaseDate <= instant && !$0.isRevoked(at: instant) }.flatMap { purchase in
            catalog.entitlements(of: purchase.productId).map {
                Entitlement(
                    identifier: $0, productId: purchase.productId, productType: .nonConsumable,
                    transactionId: purchase.transactionId, originalTransactionId: purchase.originalTransactionId,
                    startDate: purchase.purchaseDate, expiresDate: nil, ownership: purchase.ownership, basis: .purchase
                )
            }
        }
    }

    /// One entitlement per identifier: the one lasting longest (owned forever beats any end),
    /// then bought over family-shared, then by transaction id.
    static func strongest(_ entitlements: [Entitlement]) -> [Entitlement] {
        var best: [String: Entitlement] = [:]
        for entitlement in entitlements {
            guard let known = best[entitlement.identifier] else {
                best[entitlement.identifier] = entitlement
                continue
            }
            let a = entitlement.expiresDate ?? .distantFuture
            let b = known.expiresDate ?? .distantFuture
            let wins: Bool
            if a != b {
                wins = a > b
            } else if entitlement.ownership != known.ownership {
                wins = entitlement.ownership == .purchased
            } else if entitlement.basis != known.basis {
                wins = entitlement.basis == .purchase
            } else {
                wins = entitlement.transactionId < known.transactionId
            }
            if wins { best[entitlement.identifier] = entitlement }
        }
        return best.values.sorted { $0.identifier < $1.identifier }
    }
}
