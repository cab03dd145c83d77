import Foundation

/// Everything the engine concludes about one customer at one instant: each subscription's
/// state, the entitlements, offer eligibility per subscription group, the consumable log,
/// when to next ask Apple, and what it could not settle.
///
/// A pure function of the purchase history, the catalog, the instant and the configuration:
/// no I/O, no clock. The same facts in any order, from any source, give the same state.
public struct CustomerState: Sendable, Hashable {
    /// The instant the state describes.
    public var instant: Date
    /// One state per auto-renewable chain begun by the instant, sorted by group then chain id.
    public var subscriptions: [SubscriptionState]
    /// Active entitlements, one per identifier, sorted by identifier.
    public var entitlements: [Entitlement]
    /// Offer eligibility per subscription group: every group of the catalog, and every group
    /// the customer's purchases name.
    public var eligibility: [String: GroupEligibility]
    /// Consumables bought by the instant, oldest first.
    public var consumables: [ConsumablePurchase]
    /// When to next ask Apple, per original transaction id.
    public var nextLooks: [String: NextLook]
    /// Gaps the engine reported instead of guessing.
    public var diagnostics: [Diagnostic]

    public init(
        history: PurchaseHistory,
        catalog: Catalog = .empty,
        at instant: Date,
        configuration: EngineConfiguration = EngineConfiguration()
    ) {
        self.instant = instant
        var diagnostics: [Diagnostic] = []
        var byType: [ProductKind: [PurchaseFact]] = [:]
        for purchase in history.effectivePurchases {
            guard let type = RevenueLedger.type(of: purchase, catalog) else {
                if purchase.purchaseDate <= instant {
                    diagnostics.append(
                        Diagnostic(
                            code: .unknownProductType, productId: purchase.productId, transactionId: purchase.transactionId,
                            message: "The source does not say what kind of product this is and the catalog does not list it."
                        ))
                }
                continue
            }
            byType[type, default: []].append(purchase)
        }

        var chains: [String: [PurchaseFact]] = [:]
        for purchase in byType[.autoRenewable] ?? [] {
            chains[purchase.originalTransactionId, default: []].append(purchase)
        }
        var states: [SubscriptionState] = []
        for (id, periods) in chains {
            guard
                let state = SubscriptionState.evaluate(
                    periods: periods, renewal: history.renewals[id], timeline: history.renewalTimeline[id] ?? [], catalog: catalog, at: instant,
                    configuration: configuration
                )
            else { continue }
            states.append(state)
            if state.subscriptionGroupIdentifier == nil {
                diagnostics.append(
                    Diagnostic(
                        code: .unknownSubscriptionGroup, productId: state.productId, transactionId: state.transactionId,
                        message: "Neither the source nor the catalog names this subscription's group; eligibility cannot count it."
                    ))
            }
        }
        states.sort {
            ($0.subscriptionGroupIdentifier ?? "", $0.originalTransactionId) < ($1.subscriptionGroupIdentifier ?? "", $1.originalTransactionId)
        }
        subscriptions = states

        let evaluation = EntitlementEvaluation(catalog: catalog, instant: instant, configuration: configuration)
        var granted = evaluation.subscriptionEntitlements(states)
        granted += evaluation.nonRenewingEntitlements(byType[.nonRenewing] ?? [], diagnostics: &diagnostics)
        granted += evaluation.nonConsumableEntitlements(byType[.nonConsumable] ?? [])
        entitlements = EntitlementEvaluation.strongest(granted)

        var groupPurchases: [String: [PurchaseFact]] = [:]
        for purchase in byType[.autoRenewable] ?? [] {
            guard let group = purchase.subscriptionGroupIdentifier ?? catalog.product(purchase.productId)?.subscriptionGroupIdentifier else {
                continue
            }
            groupPurchases[group, default: []].append(purchase)
        }
        var groups = Set(catalog.subscriptionGroups)
        groups.formUnion(groupPurchases.keys)
        var eligibility: [String: GroupEligibility] = [:]
        for group in groups {
            eligibility[group] = GroupEligibility.evaluate(
                group: group,
                purchases: groupPurchases[group] ?? [],
                states: states.filter { $0.subscriptionGroupIdentifier == group },
                at: instant,
                rule: configuration.introductoryOfferRule
            )
        }
        self.eligibility = eligibility

        consumables = (byType[.consumable] ?? [])
            .filter { $0.purchaseDate <= instant }
            .sorted(by: PurchaseFact.chronologically)
            .map {
                ConsumablePurchase(
                    transactionId: $0.transactionId, productId: $0.productId, purchaseDate: $0.purchaseDate,
                    quantity: $0.quantity, revocation: $0.isRevoked(at: instant) ? $0.revocation : nil
                )
            }

        var looks: [String: NextLook] = [:]
        for state in states {
            looks[state.originalTransactionId] = NextLook(for: state, at: instant, configuration: configuration)
        }
        nextLooks = looks
        self.diagnostics = Array(Set(diagnostics)).sorted {
            ($0.code.rawValue, $0.productId ?? "", $0.transactionId ?? "") < ($1.code.rawValue, $1.productId ?? "", $1.transactionId ?? "")
        }
    }

    /// The state of the chain `originalTransactionId`, if it had begun by the instant.
    public func subscription(_ originalTransactionId: String) -> SubscriptionState? {
        subscriptions.first { $0.originalTransactionId == originalTransactionId }
    }

    /// Whether the customer has the entitlement `identifier` at the instant.
    public func isEntitled(to identifier: String) -> Bool {
        entitlements.contains { $0.identifier == identifier }
    }
}
