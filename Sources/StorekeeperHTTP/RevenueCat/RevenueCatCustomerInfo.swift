import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionEngine

/// A customer as RevenueCat's SDK decodes it (`CustomerInfoResponse` in purchases-ios), built
/// from the engine's state over Storekeeper's ledger at the request's instant; nothing of it
/// is stored.
///
/// ```
/// {request_date, request_date_ms,
///  subscriber: {original_app_user_id, original_application_version, original_purchase_date,
///               first_seen, last_seen, management_url, other_purchases,
///               entitlements: {id: {expires_date, grace_period_expires_date, product_identifier, purchase_date}},
///               subscriptions: {productId: {purchase_date, original_purchase_date, expires_date, store,
///                                           is_sandbox, unsubscribe_detected_at, billing_issues_detected_at,
///                                           grace_period_expires_date, refunded_at, ownership_type,
///                                           period_type, store_transaction_id, price}},
///               non_subscriptions: {productId: [{id, purchase_date, original_purchase_date, store,
///                                                is_sandbox, store_transaction_id, price}]},
///               subscriber_attributes: {key: {value, updated_at_ms}}}}
/// ```
///
/// Dates are ISO 8601 with milliseconds (the SDK reads them with or without). The mapping:
/// `original_app_user_id` is the Storekeeper customer id; an entitlement is the engine's
/// active entitlement (its access end as `expires_date`), and an entitlement a lapsed
/// subscription granted is listed with its past end, as RevenueCat lists expired ones; a
/// subscription is each chain's current period, keyed by its product; non-subscriptions are
/// the consumables, non-consumables and non-renewing purchases not taken back. Storekeeper
/// keeps no receipt's app-level fields, so `original_application_version` and
/// `original_purchase_date` are absent, and `first_seen` is the first fact recorded for the
/// customer (the request's instant for a customer with none).
package struct RevenueCatCustomerInfo: Encodable, Sendable {
    package var requestDate: Date
    package var subscriber: Subscriber

    package struct Subscriber: Encodable, Sendable {
        package var originalAppUserId: String
        package var originalApplicationVersion: String?
        package var originalPurchaseDate: Date?
        package var firstSeen: Date
        package var lastSeen: Date
        package var managementUrl: String?
        package var entitlements: [String: EntitlementInfo] = [:]
        package var subscriptions: [String: Subscription] = [:]
        package var nonSubscriptions: [String: [Transaction]] = [:]
        package var otherPurchases: [String: String] = [:]
        package var subscriberAttributes: [String: Attribute]?

        enum CodingKeys: String, CodingKey {
            case originalAppUserId = "original_app_user_id"
            case originalApplicationVersion = "original_application_version"
            case originalPurchaseDate = "original_purchase_date"
            case firstSeen = "first_seen"
            case lastSeen = "last_seen"
            case managementUrl = "management_url"
            case entitlements
            case subscriptions
            case nonSubscriptions = "non_subscriptions"
            case otherPurchases = "other_purchases"
            case subscriberAttributes = "subscriber_attributes"
        }
    }

    package struct EntitlementInfo: Encodable, Sendable {
        package var expiresDate: Date?
        package var gracePeriodExpiresDate: Date?
        package var productIdentifier: String
        package var purchaseDate: Date

        enum CodingKeys: String, CodingKey {
            case expiresDate = "expires_date"
            case gracePeriodExpiresDate = "grace_period_expires_date"
            case productIdentifier = "product_identifier"
            case purchaseDate = "purchase_date"
        }
    }

    package struct Price: Encodable, Sendable {
        package var currency: String
        package var amount: Double
    }

    package struct Subscription: Encodable, Sendable {
        package var purchaseDate: Date
        package var originalPurchaseDate: Date?
        package var expiresDate: Date?
        package var store = "app_store"
        package var isSandbox: Bool
        package var unsubscribeDetectedAt: Date?
        package var billingIssuesDetectedAt: Date?
        package var gracePeriodExpiresDate: Date?
        package var refundedAt: Date?
        package var ownershipType: String
        package var periodType: String
        package var storeTransactionId: String
        package var price: Price?

        enum CodingKeys: String, CodingKey {
            case purchaseDate = "purchase_date"
            case originalPurchaseDate = "original_purchase_date"
            case expiresDate = "expires_date"
            case store
            case isSandbox = "is_sandbox"
            case unsubscribeDetectedAt = "unsubscribe_detected_at"
            case billingIssuesDetectedAt = "billing_issues_detected_at"
            case gracePeriodExpiresDate = "grace_period_expires_date"
            case refundedAt = "refunded_at"
            case ownershipType = "ownership_type"
            case periodType = "period_type"
            case storeTransactionId = "store_transaction_id"
            case price
        }
    }

    package struct Transaction: Encodable, Sendable {
        package var id: String
        package var purchaseDate: Date
        package var originalPurchaseDate: Date?
        package var store = "app_store"
        package var isSandbox: Bool
        package var storeTransactionId: String
        package var price: Price?

        enum CodingKeys: String, CodingKey {
            case id
            case purchaseDate = "purchase_date"
            case originalPurchaseDate = "original_purchase_date"
            case store
            case isSandbox = "is_sandbox"
            case storeTransactionId = "store_transaction_id"
            case price
        }
    }

    package struct Attribute: Encodable, Sendable {
        package var value: String
        package var updatedAtMs: Int64

        enum CodingKeys: String, CodingKey {
            case value
            case updatedAtMs = "updated_at_ms"
        }
    }

    enum CodingKeys: String, CodingKey {
        case requestDate = "request_date"
        case requestDateMs = "request_date_ms"
        case subscriber
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requestDate, forKey: .requestDate)
        try container.encode(requestDate.millisecondsSince1970, forKey: .requestDateMs)
        try container.encode(subscriber, forKey: .subscriber)
    }

    /// Where Apple lets a customer manage their subscriptions.
    package static let managementURL = "https://apps.apple.com/account/subscriptions"

    /// The customer `customerId` at `state`'s instant, from its `history` (what `state` was
    /// computed from), its `ledger` entries (for `first_seen`), the entitlements other apps of
    /// the project grant it, and its attributes.
    package init(
        customerId: String, state: CustomerState, history: PurchaseHistory, catalog: Catalog, firstSeen: Date?,
        shared: [Entitlement] = [], attributes: [CustomerAttribute] = []
    ) {
        let now = state.instant
        requestDate = now
        subscriber = Subscriber(originalAppUserId: customerId, firstSeen: min(firstSeen ?? now, now), lastSeen: now)
        let byTransaction = history.effectivePurchases.reduce(into: [String: PurchaseFact]()) { $0[$1.transactionId] = $1 }
        for state in state.subscriptions {
            let fact = byTransaction[state.transactionId]
            let renewal = history.renewals[state.originalTransactionId]
            let subscription = Subscription(
                purchaseDate: state.purchaseDate, originalPurchaseDate: state.originalPurchaseDate, expiresDate: state.expiresDate,
                isSandbox: Self.isSandbox(fact?.environment),
                unsubscribeDetectedAt: state.willAutoRenew == false && !state.isCommitted ? (renewal?.signedDate ?? state.purchaseDate) : nil,
                billingIssuesDetectedAt: state.status == .billingRetry || state.status == .gracePeriod ? state.expiresDate : nil,
                gracePeriodExpiresDate: state.gracePeriodExpiresDate,
                refundedAt: state.revocation.flatMap { $0.removesAccess ? $0.date : nil },
                ownershipType: Self.ownership(state.ownership), periodType: Self.periodType(state.offer), storeTransactionId: state.transactionId,
                price: Self.price(fact?.price))
            if let known = subscriber.subscriptions[state.productId], known.purchaseDate > subscription.purchaseDate { continue }
            subscriber.subscriptions[state.productId] = subscription
        }
        if !state.subscriptions.isEmpty { subscriber.managementUrl = Self.managementURL }
        for entitlement in state.entitlements + shared where subscriber.entitlements[entitlement.identifier] == nil {
            let grace = state.subscription(entitlement.originalTransactionId)?.gracePeriodExpiresDate
            subscriber.entitlements[entitlement.identifier] = EntitlementInfo(
                expiresDate: entitlement.expiresDate, gracePeriodExpiresDate: grace.flatMap { $0 > now ? $0 : nil },
                productIdentifier: entitlement.productId, purchaseDate: entitlement.startDate)
        }
        // A lapsed subscription's entitlements, with the past end of their access: the SDK
        // shows them inactive, as RevenueCat lists expired entitlements.
        for state in state.subscriptions where !state.hasAccess {
            guard let end = state.accessEndsDate ?? state.expiresDate, end <= now else { continue }
            for identifier in catalog.entitlements(of: state.productId) {
                if let known = subscriber.entitlements[identifier], (known.expiresDate ?? .distantFuture) >= end { continue }
                subscriber.entitlements[identifier] = EntitlementInfo(
                    expiresDate: end, productIdentifier: state.productId, purchaseDate: state.purchaseDate)
            }
        }
        let kinds: Set<ProductKind> = [.consumable, .nonConsumable, .nonRenewing]
        let purchases = history.effectivePurchases.filter { purchase in
            guard purchase.purchaseDate <= now, let kind = Self.kind(of: purchase, catalog), kinds.contains(kind) else { return false }
            return !(purchase.revocation.map { $0.removesAccess && $0.date <= now } ?? false)
        }
        for purchase in purchases.sorted(by: { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }) {
            subscriber.nonSubscriptions[purchase.productId, default: []].append(
                Transaction(
                    id: purchase.transactionId, purchaseDate: purchase.purchaseDate, originalPurchaseDate: purchase.originalPurchaseDate,
                    isSandbox: Self.isSandbox(purchase.environment), storeTransactionId: purchase.transactionId, price: Self.price(purchase.price)))
        }
        let kept = attributes.compactMap { attribute in
            attribute.value.map { (attribute.key, Attribute(value: $0, updatedAtMs: attribute.updatedAt.millisecondsSince1970)) }
        }
        if !kept.isEmpty { subscriber.subscriberAttributes = Dictionary(kept, uniquingKeysWith: { _, last in last }) }
    }

    /// The JSON body, with `status` (201 for a customer `identify` created).
    package func response(status: HTTPResponse.Status = .ok) throws -> Response {
        JSONBody.response(status: status, json: ByteBuffer(data: try JSONBody.encoder().encode(self)))
    }

    /// What kind of product `purchase` is: what the fact says, else the catalog, else a
    /// subscription when it expires (the engine's own rule).
    static func kind(of purchase: PurchaseFact, _ catalog: Catalog) -> ProductKind? {
        purchase.productType ?? catalog.product(purchase.productId)?.type ?? (purchase.expiresDate != nil ? .autoRenewable : nil)
    }

    /// Anything but Apple's production environment is a sandbox (Xcode's too).
    static func isSandbox(_ environment: String?) -> Bool {
        environment.map { $0.caseInsensitiveCompare("Production") != .orderedSame } ?? false
    }

    static func ownership(_ ownership: Ownership) -> String {
        ownership == .familyShared ? "FAMILY_SHARED" : "PURCHASED"
    }

    /// RevenueCat's period types: `trial` (a free trial), `intro` (an introductory price), else `normal`.
    static func periodType(_ offer: Offer?) -> String {
        switch offer?.kind {
        case .freeTrial?: "trial"
        case .introductory?: "intro"
        default: "normal"
        }
    }

    static func price(_ money: Money?) -> Price? {
        money.map { Price(currency: $0.currency, amount: Double($0.milliunits) / 1000) }
    }
}
