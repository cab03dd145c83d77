import Foundation
import SubscriptionEngine

/// A purchase history described once, then written in Apple's two forms: a legacy
/// `verifyReceipt` response and decoded StoreKit 2 transactions and renewal infos.
struct ScenarioHistory: Sendable {
    var periods: [Period] = []
    var renewals: [Renewal] = []
    /// Write transactions newest first, to prove input order does not matter.
    var reversed = false

    /// The base instant: 2024-01-01T00:00:00Z. Scenario times are days after it.
    static let base = Date(timeIntervalSince1970: 1_704_067_200)
    static func day(_ days: Double) -> Date { base.addingTimeInterval(days * 86_400) }

    struct Period: Sendable {
        var tx: String
        var original: String
        var product: String
        var group: String? = "g"
        var type: ProductKind = .autoRenewable
        var start: Double
        var end: Double? = nil
        var offer: OfferKind? = nil
        var offerId: String? = nil
        /// Refund, family revocation or (with `upgraded`) the upgrade date, in days.
        var revokedAt: Double? = nil
        var revocation: RevocationKind = .refund
        var upgraded = false
        var family = false
        var priceMilli: Int64 = 9_990
    }

    struct Renewal: Sendable {
        var original: String
        var product: String
        var next: String? = nil
        var willRenew = true
        var intent: Int? = nil
        var retry: Bool? = nil
        var graceEnd: Double? = nil
        var priceConsent: Bool? = nil
    }

    /// A period of an auto-renewable subscription.
    static func sub(_ tx: String, _ original: String, _ product: String, _ start: Double, _ end: Double, group: String = "g") -> Period {
        Period(tx: tx, original: original, product: product, group: group, start: start, end: end)
    }

    private var orderedPeriods: [Period] { reversed ? periods.reversed() : periods }

    // MARK: StoreKit 2

    /// `{"transactions": […], "renewalInfo": […]}` of decoded StoreKit 2 payloads.
    var storeKit2JSON: Data {
        let transactions: [[String: Any]] = orderedPeriods.map { p in
            var t: [String: Any] = [
                "transactionId": p.tx, "originalTransactionId": p.original, "productId": p.product,
                "purchaseDate": Self.ms(p.start), "originalPurchaseDate": Self.ms(periods.first { $0.original == p.original }?.start ?? p.start),
                "type": Self.appleType(p.type), "inAppOwnershipType": p.family ? "FAMILY_SHARED" : "PURCHASED",
                "quantity": 1, "environment": "Production", "bundleId": "com.example.app",
                "signedDate": Self.ms(max(p.start, p.revokedAt ?? p.start)),
                "currency": "USD", "price": p.offer == .freeTrial ? 0 : p.priceMilli,
            ]
            if let group = p.group, p.type == .autoRenewable { t["subscriptionGroupIdentifier"] = group }
            if let end = p.end { t["expiresDate"] = Self.ms(end) }
            if p.upgraded { t["isUpgraded"] = true }
            if let offer = p.offer {
                switch offer {
                case .freeTrial:
                    t["offerType"] = 1
                    t["offerDiscountType"] = "FREE_TRIAL"
                case .introductory:
                    t["offerType"] = 1
                    t["offerDiscountType"] = "PAY_AS_YOU_GO"
                case .promotional: t["offerType"] = 2
                case .offerCode: t["offerType"] = 3
                case .winBack: t["offerType"] = 4
                case .retention: t["offerType"] = 5
                case .unknown: t["offerType"] = 99
                }
                if let id = p.offerId { t["offerIdentifier"] = id }
            }
            if let revoked = p.revokedAt, !p.upgraded {
                t["revocationDate"] = Self.ms(revoked)
                t["revocationReason"] = 0
                switch p.revocation {
                case .proratedRefund:
                    t["revocationType"] = "REFUND_PRORATED"
                    t["revocationPercentage"] = 50_000
                case .familyRevoke: t["revocationType"] = "FAMILY_REVOKE"
                default: t["revocationType"] = "REFUND_FULL"
                }
            }
            return t
        }
        let infos: [[String: Any]] = renewals.map { r in
            var i: [String: Any] = [
                "originalTransactionId": r.original, "productId": r.product, "autoRenewProductId": r.next ?? r.product,
                "autoRenewStatus": r.willRenew ? 1 : 0, "environment": "Production", "signedDate": Self.ms(0),
            ]
            if let intent = r.intent { i["expirationIntent"] = intent }
            if let retry = r.retry { i["isInBillingRetryPeriod"] = retry }
            if let grace = r.graceEnd { i["gracePeriodExpiresDate"] = Self.ms(grace) }
            if let consent = r.priceConsent { i["priceIncreaseStatus"] = consent ? 1 : 0 }
            return i
        }
        return Self.json(["transactions": transactions, "renewalInfo": infos])
    }

    // MARK: Legacy

    /// A `verifyReceipt` response: everything in `receipt.in_app`, subscriptions also in
    /// `latest_receipt_info` (so deduplication is exercised), renewal state in
    /// `pending_renewal_info`. Legacy receipts carry no group here: the catalog supplies it.
    var verifyReceiptJSON: Data {
        func entry(_ p: Period) -> [String: Any] {
            var t: [String: Any] = [
                "quantity": "1", "product_id": p.product, "transaction_id": p.tx, "original_transaction_id": p.original,
                "purchase_date_ms": Self.msString(p.start),
                "original_purchase_date_ms": Self.msString(periods.first { $0.original == p.original }?.start ?? p.start),
                "is_trial_period": p.offer == .freeTrial ? "true" : "false",
                "is_in_intro_offer_period": p.offer == .introductory ? "true" : "false",
                "in_app_ownership_type": p.family ? "FAMILY_SHARED" : "PURCHASED",
            ]
            if let end = p.end { t["expires_date_ms"] = Self.msString(end) }
            if p.upgraded { t["is_upgraded"] = "true" }
            if let revoked = p.revokedAt {
                t["cancellation_date_ms"] = Self.msString(revoked)
                t["cancellation_reason"] = "0"
            }
            if p.offer == .promotional, let id = p.offerId { t["promotional_offer_id"] = id }
            if p.offer == .offerCode, let id = p.offerId { t["offer_code_ref_name"] = id }
            return t
        }
        let all = orderedPeriods.map(entry)
        let subscriptions = orderedPeriods.filter { $0.type == .autoRenewable }.map(entry)
        let pending: [[String: Any]] = renewals.map { r in
            var i: [String: Any] = [
                "original_transaction_id": r.original, "product_id": r.product,
                "auto_renew_product_id": r.next ?? r.product, "auto_renew_status": r.willRenew ? "1" : "0",
            ]
            if let intent = r.intent { i["expiration_intent"] = String(intent) }
            if let retry = r.retry { i["is_in_billing_retry_period"] = retry ? "1" : "0" }
            if let grace = r.graceEnd { i["grace_period_expires_date_ms"] = Self.msString(grace) }
            if let consent = r.priceConsent { i["price_consent_status"] = consent ? "1" : "0" }
            return i
        }
        var response: [String: Any] = [
            "status": 0, "environment": "Production",
            "receipt": ["receipt_type": "Production", "bundle_id": "com.example.app", "in_app": all],
        ]
        if !subscriptions.isEmpty { response["latest_receipt_info"] = subscriptions }
        if !pending.isEmpty { response["pending_renewal_info"] = pending }
        return Self.json(response)
    }

    // MARK: Helpers

    static func ms(_ days: Double) -> Int64 { Int64((day(days).timeIntervalSince1970 * 1000).rounded()) }
    static func msString(_ days: Double) -> String { String(ms(days)) }
    static func appleType(_ type: ProductKind) -> String {
        switch type {
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        }
    }
    static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}

/// The catalog every scenario uses.
let scenarioCatalog = Catalog(products: [
    CatalogProduct(productId: "basic.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "g", entitlements: ["basic"], price: 4.99),
    CatalogProduct(productId: "pro.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "g", entitlements: ["basic", "pro"], price: 9.99),
    CatalogProduct(productId: "pro.yearly", type: .autoRenewable, subscriptionGroupIdentifier: "g", entitlements: ["basic", "pro"], price: 99.99),
    CatalogProduct(productId: "news.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "h", entitlements: ["news"], price: 2.99),
    CatalogProduct(productId: "z.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "z", entitlements: ["z"]),
    CatalogProduct(productId: "pass.month", type: .nonRenewing, entitlements: ["pass"], duration: ISO8601Duration("P1M"), price: 3.99),
    CatalogProduct(productId: "lifetime", type: .nonConsumable, entitlements: ["lifetime"], price: 29.99),
    CatalogProduct(productId: "coins", type: .consumable, price: 0.99),
])

var scenarioCatalogJSON: Data {
    (try? JSONEncoder().encode(scenarioCatalog)) ?? Data()
}
