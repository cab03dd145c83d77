import Foundation
import SubscriptionEngine

/// The state of the business at one instant, every count the engine's answer for each chain
/// at that instant from all facts known now (so "active" means exactly what access means).
///
/// | metric | what counts |
/// |---|---|
/// | `activeSubscriptions` | purchaser-owned chains whose status is `active` or `gracePeriod` and whose current period is paid (not a free trial); auto-renew off stays active until expiry |
/// | `gracePeriod` | the subset of `activeSubscriptions` in a billing grace period |
/// | `billingRetry` | purchaser-owned chains in billing retry (no access, not active) |
/// | `activeTrials` | purchaser-owned chains with access in a free-trial period |
/// | `familyShared` | family-shared copies with access, counted apart and never in paid figures |
/// | `mrr` | over `activeSubscriptions`, the current period's price normalized to a month (``BillingPeriod/monthlyFactor``; a monthly payment of a 12-month commitment is a month's), gross of commission, in the reporting currency |
///
/// An operator's manual grant is access, not a subscription anyone pays for: it counts in none
/// of these (not in `activeSubscriptions`, and it adds nothing to `mrr`, which is paid recurring
/// revenue), even when it grants an auto-renewable product.
public struct Snapshot: Sendable, Hashable {
    public var at: Date
    /// The reporting currency of ``mrr``.
    public var currency: String
    public var activeSubscriptions: Int
    public var activeTrials: Int
    public var gracePeriod: Int
    public var billingRetry: Int
    public var familyShared: Int
    /// Monthly recurring revenue, rounded once to the cent.
    public var mrr: Decimal
    /// MRR in currencies without an exchange rate, each in its own units.
    public var unconverted: [String: Decimal]
    /// Active subscriptions whose price no source and no catalog entry gives (counted, not in MRR).
    public var unpriced: Int
}

/// Turns the ledger's facts into the business's figures, asking ``CustomerState`` every
/// question about state. Pure: facts, catalog and instants in; figures out.
public struct SubscriptionAnalytics: Sendable {
    public let catalog: Catalog
    public let configuration: AnalyticsConfiguration
    /// The environment whose facts count (`Production` unless asked; see
    /// ``SubscriptionEngine/PurchaseHistory/restricted(to:)``).
    public let environment: String

    public init(catalog: Catalog, configuration: AnalyticsConfiguration = AnalyticsConfiguration(), environment: String = "Production") {
        self.catalog = catalog
        self.configuration = configuration
        self.environment = environment
    }

    /// The snapshot metrics of `history` (every fact of the app) at `instant`.
    public func snapshot(of history: PurchaseHistory, at instant: Date) -> Snapshot {
        let history = history.restricted(to: environment)
        let state = CustomerState(history: history, catalog: catalog, at: instant)
        var snapshot = Snapshot(
            at: instant, currency: configuration.reportingCurrency, activeSubscriptions: 0, activeTrials: 0, gracePeriod: 0,
            billingRetry: 0, familyShared: 0, mrr: 0, unconverted: [:], unpriced: 0)
        var mrr = MoneySum()
        for subscription in state.subscriptions {
            let part = contribution(of: subscription, in: history)
            part.add(to: &snapshot)
            if let money = part.mrr { mrr.add(money.price, times: money.factor) }
        }
        (snapshot.mrr, snapshot.unconverted) = mrr.total(in: configuration)
        return snapshot
    }

    /// What one chain's state adds to a snapshot: the definitions above, in one place.
    func contribution(of subscription: SubscriptionState, in history: PurchaseHistory) -> Contribution {
        var part = Contribution()
        let hasAccess = subscription.status == .active || subscription.status == .gracePeriod
        if subscription.ownership == .familyShared {
            part.familyShared = hasAccess
            return part
        }
        part.billingRetry = subscription.status == .billingRetry
        guard hasAccess else { return part }
        if subscription.offer?.kind == .freeTrial {
            part.activeTrial = true
            return part
        }
        part.activeSubscription = true
        part.gracePeriod = subscription.status == .gracePeriod
        if let (price, period) = currentPeriod(of: subscription, in: history) {
            part.mrr = Contribution.Recurring(price: price, factor: period.monthlyFactor)
        } else {
            part.unpriced = true
        }
        return part
    }

    /// The price paid for the subscription's current period (the transaction's own, else the
    /// catalog's) and the product's billing period (the catalog's, else the period's dates). A
    /// monthly payment of a 12-month commitment is billed a month, whatever the product's year:
    /// its MRR is the monthly charge.
    func currentPeriod(of subscription: SubscriptionState, in history: PurchaseHistory) -> (Money, BillingPeriod)? {
        let transaction = history.purchases[subscription.transactionId]
        let product = catalog.product(subscription.productId)
        let monthly = (transaction?.billingPlanType ?? subscription.billingPlanType) == "MONTHLY" ? BillingPeriod.months(1) : nil
        guard let price = transaction?.price ?? product?.listPrice,
            let period = monthly ?? product?.subscriptionPeriod.map(BillingPeriod.init)
                ?? BillingPeriod(from: subscription.purchaseDate, to: transaction?.expiresDate ?? subscription.expiresDate)
        else { return nil }
        return (price, period)
    }
}

/// One chain's part of a snapshot.
struct Contribution: Sendable, Hashable {
    struct Recurring: Sendable, Hashable {
        var price: Money
        var factor: (numerator: Int64, denominator: Int64)

        static func == (a: Recurring, b: Recurring) -> Bool {
            a.price == b.price && a.factor.numerator == b.factor.numerator && a.factor.denominator == b.factor.denominator
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(price)
            hasher.combine(factor.numerator)
            hasher.combine(factor.denominator)
        }
    }

    var activeSubscription = false
    var activeTrial = false
    var gracePeriod = false
    var billingRetry = false
    var familyShared = false
    var unpriced = false
    var mrr: Recurring?

    var isEmpty: Bool { self == Contribution() }

    func add(to snapshot: inout Snapshot) {
        if activeSubscription { snapshot.activeSubscriptions += 1 }
        if activeTrial { snapshot.activeTrials += 1 }
        if gracePeriod { snapshot.gracePeriod += 1 }
        if billingRetry { snapshot.billingRetry += 1 }
        if familyShared { snapshot.familyShared += 1 }
        if unpriced { snapshot.unpriced += 1 }
    }
}
