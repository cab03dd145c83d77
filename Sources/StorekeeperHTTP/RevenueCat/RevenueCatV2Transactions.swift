import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// A customer's subscriptions and purchases in v2's shapes, from the engine's state.
///
/// - A v2 subscription is one auto-renewable chain (``SubscriptionState``): `status` is the
///   engine's status (`active`, or `trialing` in a free trial; `in_grace_period`,
///   `in_billing_retry`; `expired`, also for a refunded chain); `gives_access` is the engine's
///   access; `auto_renewal_status` comes from Apple's renewal info.
/// - A v2 purchase is any other transaction (non-consumable, consumable, non-renewing).
/// - Money is the ``RevenueLedger``'s: prices paid less refunds (`gross`), Apple's commission,
///   `proceeds`. It is in the transactions' own currency: Storekeeper converts no currency,
///   so `total_revenue_in_usd` is in USD only when the customer paid in USD.
/// - An operator's grant (`grant:` transactions) is v2's `promotional` store.
extension RevenueCatV2Customers {
    /// The customer's subscriptions (apps in id order, chains by first purchase), in
    /// `environment` (`production` or `sandbox`) when given.
    package func subscriptions(customerId: String, _ loaded: [Loaded], environment: String?) -> [RevenueCatV2.Subscription] {
        loaded.flatMap { member in
            let revenue = RevenueLedger(history: member.history, catalog: member.member.app.catalog, at: now)
            return member.state.subscriptions
                .sorted {
                    ($0.originalPurchaseDate ?? $0.purchaseDate, $0.originalTransactionId) < (
                        $1.originalPurchaseDate ?? $1.purchaseDate, $1.originalTransactionId
                    )
                }
                .map { subscription(customerId: customerId, app: member.member.app, state: $0, history: member.history, revenue: revenue) }
                .filter { environment == nil || $0.environment == environment }
        }
    }

    package func subscription(
        customerId: String, app: AppRuntime, state: SubscriptionState, history: PurchaseHistory, revenue: RevenueLedger
    ) -> RevenueCatV2.Subscription {
        let id = RevenueCatV2Project.subscriptionId(app, state.originalTransactionId)
        let fact = history.purchases[state.transactionId]
        let status: String =
            switch state.status {
            case .active: state.offer?.kind == .freeTrial ? "trialing" : "active"
            case .gracePeriod: "in_grace_period"
            case .billingRetry: "in_billing_retry"
            case .expired, .revoked: "expired"
            }
        let changing = state.nextProductId.flatMap { $0 == state.productId ? nil : $0 }
        let renewal: String =
            if state.willAutoRenew == false {
                "will_not_renew"
            } else if changing != nil {
                "will_change_product"
            } else if state.priceIncreaseConsent == .pending {
                "requires_price_increase_consent"
            } else {
                "will_renew"
            }
        let pending = changing.map { next in
            RevenueCatV2.Subscription.PendingChanges(
                product: app.catalog.product(next).map { project.product(app, $0) }
                    ?? RevenueCatV2.Product(
                        id: RevenueCatV2Project.productId(app, next), storeIdentifier: next, type: "subscription", createdAt: project.recordedAt(app),
                        appId: RevenueCatV2Project.revenueCatAppId(app), displayName: nil))
        }
        let entitlements = project.entitlements(of: state.productId, in: app, kind: .autoRenewable)
        return RevenueCatV2.Subscription(
            id: id, customerId: customerId, originalCustomerId: customerId, productId: RevenueCatV2Project.productId(app, state.productId),
            startsAt: RevenueCatV2.ms(state.originalPurchaseDate ?? state.purchaseDate), currentPeriodStartsAt: RevenueCatV2.ms(state.purchaseDate),
            currentPeriodEndsAt: state.expiresDate.map(RevenueCatV2.ms), givesAccess: state.hasAccess, pendingPayment: false,
            autoRenewalStatus: renewal, status: status,
            totalRevenueInUsd: Self.money(revenue.transactions.filter { $0.originalTransactionId == state.originalTransactionId }),
            presentedOfferingId: nil,
            entitlements: RevenueCatV2.List(items: entitlements, url: project.path("subscriptions/\(RevenueCatV2Page.pathEscaped(id))/entitlements")),
            environment: Self.environment(fact?.environment), store: state.transactionId.hasPrefix("grant:") ? "promotional" : "app_store",
            storeSubscriptionIdentifier: state.transactionId, ownership: Self.ownership(state.ownership),
            managementUrl: "https://apps.apple.com/account/subscriptions", pendingChanges: pending)
    }

    /// The customer's purchases that are not auto-renewable subscriptions, oldest first.
    package func purchases(customerId: String, _ loaded: [Loaded], environment: String?) -> [RevenueCatV2.Purchase] {
        loaded.flatMap { member in
            let app = member.member.app
            let revenue = RevenueLedger(history: member.history, catalog: app.catalog, at: now)
            return member.history.effectivePurchases
                .filter { Self.kind(of: $0, app.catalog) != .autoRenewable && $0.purchaseDate <= now }
                .sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
                .map { purchase(customerId: customerId, app: app, fact: $0, revenue: revenue) }
                .filter { environment == nil || $0.environment == environment }
        }
    }

    package func purchase(customerId: String, app: AppRuntime, fact: PurchaseFact, revenue: RevenueLedger) -> RevenueCatV2.Purchase {
        let id = RevenueCatV2Project.purchaseId(app, fact.transactionId)
        let refunded = fact.revocation.map { $0.removesAccess && $0.date <= now } ?? false
        let entitlements = project.entitlements(of: fact.productId, in: app, kind: Self.kind(of: fact, app.catalog))
        return RevenueCatV2.Purchase(
            id: id, customerId: customerId, originalCustomerId: customerId, productId: RevenueCatV2Project.productId(app, fact.productId),
            purchasedAt: RevenueCatV2.ms(fact.purchaseDate),
            revenueInUsd: Self.money(revenue.transactions.filter { $0.transactionId == fact.transactionId }),
            quantity: fact.quantity, status: refunded ? "refunded" : "owned", presentedOfferingId: nil,
            entitlements: RevenueCatV2.List(items: entitlements, url: project.path("purchases/\(RevenueCatV2Page.pathEscaped(id))/entitlements")),
            environment: Self.environment(fact.environment), store: fact.isManualGrant ? "promotional" : "app_store",
            storePurchaseIdentifier: fact.transactionId, ownership: Self.ownership(fact.ownership))
    }

    package static func kind(of fact: PurchaseFact, _ catalog: Catalog) -> ProductKind? {
        fact.productType ?? catalog.product(fact.productId)?.type ?? (fact.expiresDate != nil ? .autoRenewable : nil)
    }

    /// v2's environment of Apple's (`Production` is `production`; the sandbox, Xcode and local
    /// testing are `sandbox`); a fact without one is from production.
    package static func environment(_ apple: String?) -> String {
        guard let apple else { return "production" }
        return apple.lowercased() == "production" ? "production" : "sandbox"
    }

    package static func ownership(_ ownership: Ownership) -> String {
        ownership == .familyShared ? "family_shared" : "purchased"
    }

    /// The revenue of `transactions` as one v2 amount: in their currency when they share one,
    /// else the USD ones only (no currency is converted).
    package static func money(_ transactions: [TransactionRevenue]) -> RevenueCatV2.Money {
        let currencies = Set(transactions.compactMap { $0.price?.currency })
        let currency = currencies.count == 1 ? currencies.first ?? "USD" : "USD"
        var (gross, proceeds): (Int64, Int64) = (0, 0)
        for transaction in transactions where transaction.price?.currency == currency {
            gross += max(0, (transaction.price?.milliunits ?? 0) - (transaction.refunded?.milliunits ?? 0))
            proceeds += transaction.proceeds?.milliunits ?? 0
        }
        let amount = { (milliunits: Int64) in Decimal(milliunits) / 1000 }
        return RevenueCatV2.Money(currency: currency, gross: amount(gross), tax: 0, proceeds: amount(proceeds), commission: amount(gross - proceeds))
    }
}
