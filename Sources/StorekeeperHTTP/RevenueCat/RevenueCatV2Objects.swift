import Foundation
import Hummingbird

/// The objects RevenueCat's REST API v2 answers with, as its generated client reads them
/// (`revenuecat-client` 2.0.0's models): snake-case keys, times in milliseconds since 1970, and
/// every key the client requires present, `null` when there is no value.
package enum RevenueCatV2 {
    /// Milliseconds since 1970, v2's time.
    package static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// `{"object": "list", "items": […], "next_page": "/<prefix>/v2/…?starting_after=…" | null, "url": "/<prefix>/v2/…"}`.
    package struct List<Item: Encodable & Sendable>: ResponseEncodable, Sendable {
        package var items: [Item]
        package var nextPage: String?
        package var url: String

        package init(items: [Item], nextPage: String? = nil, url: String) {
            self.items = items
            self.nextPage = nextPage
            self.url = url
        }

        enum CodingKeys: String, CodingKey {
            case object, items, url
            case nextPage = "next_page"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("list", forKey: .object)
            try container.encode(items, forKey: .items)
            try container.encode(nextPage, forKey: .nextPage)
            try container.encode(url, forKey: .url)
        }
    }

    package struct Project: Encodable, Sendable {
        let object = "project"
        package var id: String
        package var name: String
        package var createdAt: Int64

        enum CodingKeys: String, CodingKey {
            case object, id, name
            case createdAt = "created_at"
        }
    }

    package struct App: ResponseEncodable, Sendable {
        package struct AppStore: Encodable, Sendable {
            package var bundleId: String
            enum CodingKeys: String, CodingKey { case bundleId = "bundle_id" }
        }
        let object = "app"
        package var id: String
        package var name: String
        package var createdAt: Int64
        let type = "app_store"
        package var projectId: String
        package var appStore: AppStore

        enum CodingKeys: String, CodingKey {
            case object, id, name, type
            case createdAt = "created_at"
            case projectId = "project_id"
            case appStore = "app_store"
        }
    }

    package struct Customer: ResponseEncodable, Sendable {
        let object = "customer"
        package var id: String
        package var projectId: String
        package var firstSeenAt: Int64
        /// Storekeeper does not see SDK sessions: always `null`.
        package var lastSeenAt: Int64?
        package var activeEntitlements: List<ActiveEntitlement>
        package var attributes: List<Attribute>?

        enum CodingKeys: String, CodingKey {
            case object, id, attributes
            case projectId = "project_id"
            case firstSeenAt = "first_seen_at"
            case lastSeenAt = "last_seen_at"
            case activeEntitlements = "active_entitlements"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(id, forKey: .id)
            try container.encode(projectId, forKey: .projectId)
            try container.encode(firstSeenAt, forKey: .firstSeenAt)
            try container.encode(lastSeenAt, forKey: .lastSeenAt)
            try container.encode(activeEntitlements, forKey: .activeEntitlements)
            try container.encodeIfPresent(attributes, forKey: .attributes)
        }
    }

    package struct ActiveEntitlement: Encodable, Sendable {
        let object = "customer.active_entitlement"
        package var entitlementId: String
        package var expiresAt: Int64?

        enum CodingKeys: String, CodingKey {
            case object
            case entitlementId = "entitlement_id"
            case expiresAt = "expires_at"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(entitlementId, forKey: .entitlementId)
            try container.encode(expiresAt, forKey: .expiresAt)
        }
    }

    package struct Alias: Encodable, Sendable {
        let object = "customer.alias"
        package var id: String
        package var createdAt: Int64

        enum CodingKeys: String, CodingKey {
            case object, id
            case createdAt = "created_at"
        }
    }

    package struct Attribute: Encodable, Sendable {
        let object = "customer.attribute"
        package var name: String
        package var value: String?
        package var updatedAt: Int64

        enum CodingKeys: String, CodingKey {
            case object, name, value
            case updatedAt = "updated_at"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(name, forKey: .name)
            try container.encode(value, forKey: .value)
            try container.encode(updatedAt, forKey: .updatedAt)
        }
    }

    package struct Entitlement: ResponseEncodable, Sendable {
        let object = "entitlement"
        package var projectId: String
        package var id: String
        package var lookupKey: String
        package var displayName: String
        package var createdAt: Int64
        package var products: List<Product>?

        enum CodingKeys: String, CodingKey {
            case object, id, products
            case projectId = "project_id"
            case lookupKey = "lookup_key"
            case displayName = "display_name"
            case createdAt = "created_at"
        }
    }

    package struct Product: ResponseEncodable, Sendable {
        package struct SubscriptionTerms: Encodable, Sendable {
            package var duration: String?
            package var gracePeriodDuration: String?
            package var trialDuration: String?

            enum CodingKeys: String, CodingKey {
                case duration
                case gracePeriodDuration = "grace_period_duration"
                case trialDuration = "trial_duration"
            }

            package func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(duration, forKey: .duration)
                try container.encode(gracePeriodDuration, forKey: .gracePeriodDuration)
                try container.encode(trialDuration, forKey: .trialDuration)
            }
        }
        package struct OneTime: Encodable, Sendable {
            package var isConsumable: Bool
            enum CodingKeys: String, CodingKey { case isConsumable = "is_consumable" }
        }
        let object = "product"
        package var id: String
        package var storeIdentifier: String
        /// `subscription` or `one_time`.
        package var type: String
        package var createdAt: Int64
        package var appId: String
        package var displayName: String?
        package var subscription: SubscriptionTerms?
        package var oneTime: OneTime?
        package var app: App?

        enum CodingKeys: String, CodingKey {
            case object, id, type, subscription, app
            case storeIdentifier = "store_identifier"
            case createdAt = "created_at"
            case appId = "app_id"
            case displayName = "display_name"
            case oneTime = "one_time"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(id, forKey: .id)
            try container.encode(storeIdentifier, forKey: .storeIdentifier)
            try container.encode(type, forKey: .type)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(appId, forKey: .appId)
            try container.encode(displayName, forKey: .displayName)
            try container.encodeIfPresent(subscription, forKey: .subscription)
            try container.encodeIfPresent(oneTime, forKey: .oneTime)
            try container.encodeIfPresent(app, forKey: .app)
        }
    }

    package struct Offering: ResponseEncodable, Sendable {
        let object = "offering"
        package var id: String
        package var lookupKey: String
        package var displayName: String
        package var isCurrent: Bool
        package var createdAt: Int64
        package var projectId: String
        package var metadata: JSONValue?
        package var packages: List<Package>?

        enum CodingKeys: String, CodingKey {
            case object, id, metadata, packages
            case lookupKey = "lookup_key"
            case displayName = "display_name"
            case isCurrent = "is_current"
            case createdAt = "created_at"
            case projectId = "project_id"
        }
    }

    package struct Package: ResponseEncodable, Sendable {
        let object = "package"
        package var id: String
        package var lookupKey: String
        package var displayName: String
        package var position: Int?
        package var createdAt: Int64
        package var products: List<PackageProduct>?

        enum CodingKeys: String, CodingKey {
            case object, id, position, products
            case lookupKey = "lookup_key"
            case displayName = "display_name"
            case createdAt = "created_at"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(id, forKey: .id)
            try container.encode(lookupKey, forKey: .lookupKey)
            try container.encode(displayName, forKey: .displayName)
            try container.encode(position, forKey: .position)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encodeIfPresent(products, forKey: .products)
        }
    }

    /// A package's product: `{"product": {…}, "eligibility_criteria": "all"}` (App Store
    /// products have no eligibility criteria of their own).
    package struct PackageProduct: Encodable, Sendable {
        package var product: Product
        let eligibilityCriteria = "all"

        enum CodingKeys: String, CodingKey {
            case product
            case eligibilityCriteria = "eligibility_criteria"
        }
    }

    /// v2's `MonetaryAmount`: `gross` is what the customer paid and kept paid (refunds taken
    /// off), `commission` Apple's share of it, `proceeds` the rest, `tax` 0 (Storekeeper does
    /// not estimate taxes; Apple's prices include them).
    package struct Money: Encodable, Sendable {
        package var currency: String
        package var gross: Decimal
        package var tax: Decimal
        package var proceeds: Decimal
        package var commission: Decimal
    }

    package struct Subscription: ResponseEncodable, Sendable {
        let object = "subscription"
        package var id: String
        package var customerId: String
        package var originalCustomerId: String
        package var productId: String?
        package var startsAt: Int64
        package var currentPeriodStartsAt: Int64
        package var currentPeriodEndsAt: Int64?
        package var givesAccess: Bool
        package var pendingPayment: Bool
        package var autoRenewalStatus: String
        package var status: String
        package var totalRevenueInUsd: Money
        package var presentedOfferingId: String?
        package var entitlements: List<Entitlement>
        package var environment: String
        package var store: String
        package var storeSubscriptionIdentifier: String
        package var ownership: String
        package var managementUrl: String?
        package var pendingChanges: PendingChanges?

        package struct PendingChanges: Encodable, Sendable {
            package var product: Product
        }

        enum CodingKeys: String, CodingKey {
            case object, id, status, entitlements, environment, store, ownership
            case customerId = "customer_id"
            case originalCustomerId = "original_customer_id"
            case productId = "product_id"
            case startsAt = "starts_at"
            case currentPeriodStartsAt = "current_period_starts_at"
            case currentPeriodEndsAt = "current_period_ends_at"
            case givesAccess = "gives_access"
            case pendingPayment = "pending_payment"
            case autoRenewalStatus = "auto_renewal_status"
            case totalRevenueInUsd = "total_revenue_in_usd"
            case presentedOfferingId = "presented_offering_id"
            case storeSubscriptionIdentifier = "store_subscription_identifier"
            case managementUrl = "management_url"
            case pendingChanges = "pending_changes"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(id, forKey: .id)
            try container.encode(customerId, forKey: .customerId)
            try container.encode(originalCustomerId, forKey: .originalCustomerId)
            try container.encode(productId, forKey: .productId)
            try container.encode(startsAt, forKey: .startsAt)
            try container.encode(currentPeriodStartsAt, forKey: .currentPeriodStartsAt)
            try container.encode(currentPeriodEndsAt, forKey: .currentPeriodEndsAt)
            try container.encode(givesAccess, forKey: .givesAccess)
            try container.encode(pendingPayment, forKey: .pendingPayment)
            try container.encode(autoRenewalStatus, forKey: .autoRenewalStatus)
            try container.encode(status, forKey: .status)
            try container.encode(totalRevenueInUsd, forKey: .totalRevenueInUsd)
            try container.encode(presentedOfferingId, forKey: .presentedOfferingId)
            try container.encode(entitlements, forKey: .entitlements)
            try container.encode(environment, forKey: .environment)
            try container.encode(store, forKey: .store)
            try container.encode(storeSubscriptionIdentifier, forKey: .storeSubscriptionIdentifier)
            try container.encode(ownership, forKey: .ownership)
            try container.encode(managementUrl, forKey: .managementUrl)
            try container.encodeIfPresent(pendingChanges, forKey: .pendingChanges)
        }
    }

    package struct Purchase: ResponseEncodable, Sendable {
        let object = "purchase"
        package var id: String
        package var customerId: String
        package var originalCustomerId: String
        package var productId: String
        package var purchasedAt: Int64
        package var revenueInUsd: Money
        package var quantity: Int
        /// `owned` or `refunded`.
        package var status: String
        package var presentedOfferingId: String?
        package var entitlements: List<Entitlement>
        package var environment: String
        package var store: String
        package var storePurchaseIdentifier: String
        package var ownership: String

        enum CodingKeys: String, CodingKey {
            case object, id, quantity, status, entitlements, environment, store, ownership
            case customerId = "customer_id"
            case originalCustomerId = "original_customer_id"
            case productId = "product_id"
            case purchasedAt = "purchased_at"
            case revenueInUsd = "revenue_in_usd"
            case presentedOfferingId = "presented_offering_id"
            case storePurchaseIdentifier = "store_purchase_identifier"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(id, forKey: .id)
            try container.encode(customerId, forKey: .customerId)
            try container.encode(originalCustomerId, forKey: .originalCustomerId)
            try container.encode(productId, forKey: .productId)
            try container.encode(purchasedAt, forKey: .purchasedAt)
            try container.encode(revenueInUsd, forKey: .revenueInUsd)
            try container.encode(quantity, forKey: .quantity)
            try container.encode(status, forKey: .status)
            try container.encode(presentedOfferingId, forKey: .presentedOfferingId)
            try container.encode(entitlements, forKey: .entitlements)
            try container.encode(environment, forKey: .environment)
            try container.encode(store, forKey: .store)
            try container.encode(storePurchaseIdentifier, forKey: .storePurchaseIdentifier)
            try container.encode(ownership, forKey: .ownership)
        }
    }

    /// An invoice: RevenueCat Billing's, so an App Store customer's invoice list is always empty.
    package struct Invoice: Encodable, Sendable {
        package var id: String
    }

    /// `{"object": "overview_metrics", "metrics": [...]}`.
    package struct OverviewMetrics: ResponseEncodable, Sendable {
        let object = "overview_metrics"
        package var metrics: [OverviewMetric]
    }

    package struct OverviewMetric: Encodable, Sendable {
        let object = "overview_metric"
        package var id: String
        package var name: String
        package var description: String
        package var unit: String
        /// `P0D` (now) or `P28D` (the last 28 days).
        package var period: String
        package var value: Decimal
        package var lastUpdatedAt: Int64?
        package var lastUpdatedAtIso8601: String?

        enum CodingKeys: String, CodingKey {
            case object, id, name, description, unit, period, value
            case lastUpdatedAt = "last_updated_at"
            case lastUpdatedAtIso8601 = "last_updated_at_iso8601"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(description, forKey: .description)
            try container.encode(unit, forKey: .unit)
            try container.encode(period, forKey: .period)
            try container.encode(value, forKey: .value)
            try container.encode(lastUpdatedAt, forKey: .lastUpdatedAt)
            try container.encode(lastUpdatedAtIso8601, forKey: .lastUpdatedAtIso8601)
        }
    }
}
