import AppStoreModels
import Foundation
import SubscriptionAnalytics
import SubscriptionEngine

/// One app (tenant) as configured: who it is at Apple, which data to trust, its keys and catalog.
public struct AppConfiguration: Sendable, Codable, CustomStringConvertible {
    /// The operator's id, used in paths: `/v1/apps/{id}/…`.
    public var id: String
    /// The bundle id every signed payload must carry.
    public var bundleId: String
    /// Apple's numeric id of the app; required for Production.
    public var appAppleId: Int64?
    /// Which of Apple's environments the app accepts (`Sandbox`, `Production`, `Xcode`, `LocalTesting`).
    public var environments: [AppStoreEnvironment]
    /// Paths of extra root certificates (DER or PEM) trusted beside Apple's, for test CAs.
    public var trustedRoots: [String]
    /// The app-specific shared secret: the V1 notification `password` and `verifyReceipt` password.
    public var sharedSecret: String?
    /// The API keys of this app.
    public var apiKeys: [APIKeyConfiguration]
    /// The catalog: product types, groups and entitlements.
    public var products: [CatalogProduct]
    /// The App Store Server API credentials; apps without them run no jobs that talk to Apple.
    public var appStoreServerAPI: AppStoreAPISettings?
    /// How to answer Apple's refund `CONSUMPTION_REQUEST`s (default ``RefundPolicy/doNotAnswer``).
    public var refundPolicy: RefundPolicy?
    /// Lets an app accept unsigned `Xcode` / `LocalTesting` data beside signed `Sandbox` /
    /// `Production` data (a development setup only: anyone can forge unsigned data). The
    /// notification route never accepts unsigned data.
    public var allowUnsignedTestData: Bool?
    /// The secret customer tokens are signed with (at least 32 characters); without it they
    /// are signed with a key derived from the app's API keys.
    public var customerTokenSecret: String?
    /// Whether the app's customers consented to sharing consumption data with Apple; only then
    /// are Apple's `CONSUMPTION_REQUEST`s answered (Apple refuses answers without consent).
    public var consumptionDataConsent: Bool?
    /// How the app's figures are reported (`/metrics`): currency, exchange rates, time zone,
    /// Small Business Program.
    public var analytics: AnalyticsConfiguration
    /// The app's webhooks: its customer events, signed, to its own backend.
    public var webhooks: [WebhookConfiguration]
    /// The app's integrations: Slack, Telegram, Amplitude, Mixpanel.
    public var integrations: [IntegrationConfiguration]
    /// Lets webhooks reach loopback and private addresses (and plain http): for tests, the demo
    /// and backends on the same private network.
    public var allowPrivateNetworks: Bool?
    /// What still speaks RevenueCat may reach this app: its SDK keys, v2 secret keys, ids.
    public var revenueCat: RevenueCatSettings?
    /// Where accepted notifications are forwarded (a second backend during a migration).
    public var notificationForwarding: NotificationForwarding?

    public init(
        id: String, bundleId: String, appAppleId: Int64? = nil, environments: [AppStoreEnvironment] = [.sandbox, .production],
        trustedRoots: [String] = [], sharedSecret: String? = nil, apiKeys: [APIKeyConfiguration] = [], products: [CatalogProduct] = [],
        appStoreServerAPI: AppStoreAPISettings? = nil, refundPolicy: RefundPolicy? = nil
    ) {
        self.appStoreServerAPI = appStoreServerAPI
        self.refundPolicy = refundPolicy
        self.id = id
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
        self.trustedRoots = trustedRoots
        self.sharedSecret = sharedSecret
        self.apiKeys = apiKeys
        self.products = products
        analytics = AnalyticsConfiguration()
        webhooks = []
        integrations = []
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        bundleId = try container.decode(String.self, forKey: .bundleId)
        appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId)
        environments = try container.decodeIfPresent([AppStoreEnvironment].self, forKey: .environments) ?? [.sandbox, .production]
        trustedRoots = try container.decodeIfPresent([String].self, forKey: .trustedRoots) ?? []
        sharedSecret = try container.decodeIfPresent(String.self, forKey: .sharedSecret)
        apiKeys = try container.decodeIfPresent([APIKeyConfiguration].self, forKey: .apiKeys) ?? []
        products = try container.decodeIfPresent([CatalogProduct].self, forKey: .products) ?? []
        appStoreServerAPI = try container.decodeIfPresent(AppStoreAPISettings.self, forKey: .appStoreServerAPI)
        refundPolicy = try container.decodeIfPresent(RefundPolicy.self, forKey: .refundPolicy)
        allowUnsignedTestData = try container.decodeIfPresent(Bool.self, forKey: .allowUnsignedTestData)
        customerTokenSecret = try container.decodeIfPresent(String.self, forKey: .customerTokenSecret)
        consumptionDataConsent = try container.decodeIfPresent(Bool.self, forKey: .consumptionDataConsent)
        analytics = try container.decodeIfPresent(AnalyticsConfiguration.self, forKey: .analytics) ?? AnalyticsConfiguration()
        webhooks = try container.decodeIfPresent([WebhookConfiguration].self, forKey: .webhooks) ?? []
        integrations = try container.decodeIfPresent([IntegrationConfiguration].self, forKey: .integrations) ?? []
        allowPrivateNetworks = try container.decodeIfPresent(Bool.self, forKey: .allowPrivateNetworks)
        revenueCat = try container.decodeIfPresent(RevenueCatSettings.self, forKey: .revenueCat)
        notificationForwarding = try container.decodeIfPresent(NotificationForwarding.self, forKey: .notificationForwarding)
    }

    /// The engine's catalog.
    public var catalog: Catalog { Catalog(products: products) }

    public var description: String {
        "app \(id) (\(bundleId)), environments \(environments), \(apiKeys.count) keys, \(products.count) products"
    }
}

/// One API key and what it may do.
public struct APIKeyConfiguration: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The secret the client sends as `Authorization: Bearer <key>`.
    public var key: String
    /// `app` (the operator's backend: every customer's state, purchases, notifications'
    /// metadata, offer signatures, customer tokens) or `admin` (also grants and revocations,
    /// support actions at Apple, notification bodies). Neither belongs in an app shipped to
    /// devices: the app gets a customer token.
    public var role: Role

    public init(key: String, role: Role) {
        self.key = key
        self.role = role
    }

    /// What a key may do.
    public enum Role: String, Sendable, Codable, Hashable {
        case app
        case admin
    }

    public var description: String { "\(role.rawValue) key \(KeyFingerprint.of(key))" }
}
