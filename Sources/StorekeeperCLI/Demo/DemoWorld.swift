import AppStoreModels
import AppStoreServerAPI
import AppStoreSimulator
import AppStoreTestSigning
import Crypto
import Foundation
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// Everything the demo wires together, made fresh for a run: a test certificate authority and a
/// receipt signer for the simulated Apple, an In-App Purchase key for the App Store Server API,
/// the simulated App Store and its population, and the server's configuration trusting them.
struct DemoWorld: Sendable {
    static let appId = "demo"
    static let bundleId = "com.example.storekeeper.demo"
    static let appAppleId: Int64 = 1_234_567_890
    static let issuerId = "5e1f1a7e-0000-4000-8000-00000000d3m0"
    static let keyId = "DEMOKEY001"

    /// The server's rate budget: the simulated clock runs thousands of times faster than real
    /// time, so Apple's per-second limits are scaled by as much (the simulator still enforces
    /// Apple's hourly limits in real time).
    static let rateBudget = RateBudget(configuration: .init(timeCompression: 1_000))

    let settings: DemoSettings
    let directory: URL
    let start: Date
    let end: Date
    let clock: SimulationClock
    let store: SimulatedAppStore
    let signer: SimulatorSigner
    let apiKey: P256.Signing.PrivateKey
    /// The server's admin key for this run (printed for the user; never logged by the server).
    let adminKey: String
    /// The dashboard's sign-in the demo creates (an admin), with a password made for this run.
    static let dashboardEmail = "demo@storekeeper.local"
    let dashboardPassword: String
    let sharedSecret: String
    /// The RevenueCat SDK key and v2 secret key the demo's app takes (apps and backends still
    /// speaking RevenueCat).
    let revenueCatSDKKey: String
    let revenueCatSecretKey: String
    /// The key of the demo's webhook secret (`whsec_` + its base64).
    let webhookKey: Data
    /// The `Authorization` header the demo's RevenueCat-format webhook carries.
    static let revenueCatAuthorization = "Bearer storekeeper-demo-revenuecat"
    /// The customer whose events the demo's backend refuses (a problem is opened for them).
    static let failingCustomer = "customer-1"

    init(settings: DemoSettings, now: Date = Date()) throws {
        self.settings = settings
        let base =
            settings.dataDirectory.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-demo-\(UUID().uuidString.prefix(8).lowercased())")
        // 0700: the server's database (with its state-signing key) and the devices' keys live here.
        try PrivateFiles.createDirectory(base)
        directory = base
        // The run ends now, so the server continues in real time where the simulation stops
        // (a check may end at a fixed instant instead, so that a seed gives the same run on any day).
        end = Date(timeIntervalSince1970: (settings.until ?? now).timeIntervalSince1970.rounded(.down))
        start = end.addingTimeInterval(-settings.days * 86_400)
        clock = SimulationClock(start: start)
        let ca = try TestCertificateAuthority.generate(
            notBefore: start.addingTimeInterval(-86_400), notAfter: end.addingTimeInterval(10 * 365 * 86_400))
        let receipts = try ReceiptSigningAuthority.generate(
            validFrom: start.addingTimeInterval(-86_400), validUntil: end.addingTimeInterval(10 * 365 * 86_400))
        signer = SimulatorSigner(certificateAuthority: ca, receiptAuthority: receipts)
        store = SimulatedAppStore(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environment: .production)
        apiKey = P256.Signing.PrivateKey()
        adminKey = "sk_demo_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        dashboardPassword = "demo-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        sharedSecret = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        revenueCatSDKKey = "appl_demo" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20)
        revenueCatSecretKey = "sk_demo_rc_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        webhookKey = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        try ca.rootCertificateDER.write(to: rootPath)
        try receipts.rootCertificateDER.write(to: receiptRootPath)
    }

    var rootPath: URL { directory.appendingPathComponent("simulator-root.der") }
    var receiptRootPath: URL { directory.appendingPathComponent("simulator-receipt-root.der") }

    /// The population the simulator runs.
    var population: PopulationConfiguration {
        var configuration = PopulationConfiguration(
            customers: settings.customers, start: start, days: settings.days, seed: settings.seed,
            products: settings.scenario?.products ?? SimulatedProduct.demoCatalog, storefronts: SimulatedStorefront.demoMix)
        // Customers about to cancel open Apple's cancellation sheet, which asks the server.
        configuration.asksRetention = settings.scenario == nil
        // Half of those who choose the yearly plan pay it monthly over a 12-month commitment.
        configuration.behaviour.commitmentPlanRate = settings.scenario == nil ? 0.5 : 0
        return configuration
    }

    /// The simulator of this run: the scenario's script, or a random population.
    func makePopulation() -> PopulationSimulator {
        if let scenario = settings.scenario {
            return PopulationSimulator(scenario: scenario, start: start, store: store, signer: signer, seed: settings.seed)
        }
        return PopulationSimulator(configuration: population, store: store, signer: signer)
    }

    /// The server's configuration: one app trusting the simulator's roots, calling the
    /// simulator's App Store Server API, with the demo catalog.
    func serverConfiguration(applePort: Int, receiverPort: Int) -> ServerConfiguration {
        let products = population.products.map(\.catalogProduct)
        var app = AppConfiguration(
            id: Self.appId, bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: [.production],
            trustedRoots: [rootPath.path, receiptRootPath.path], sharedSecret: sharedSecret,
            apiKeys: [APIKeyConfiguration(key: adminKey, role: .admin)], products: products,
            appStoreServerAPI: settings.reconciles
                ? AppStoreAPISettings(
                    issuerId: Self.issuerId, keyId: Self.keyId, privateKey: apiKey.pemRepresentation, environment: "Production",
                    baseURL: "http://127.0.0.1:\(applePort)") : nil,
            refundPolicy: nil)
        app.analytics = analytics
        // The app's backend and its alert channel: the demo's receiver on loopback.
        app.allowPrivateNetworks = true
        let secret = "whsec_" + webhookKey.base64EncodedString()
        app.webhooks = [
            WebhookConfiguration(
                id: "demo-backend", url: "http://127.0.0.1:\(receiverPort)/webhook", secret: secret, events: Self.customerEventTypes),
            WebhookConfiguration(
                id: "demo-alerts", url: "http://127.0.0.1:\(receiverPort)/alerts", secret: secret,
                events: [EventType.problemOpened.rawValue, EventType.problemResolved.rawValue]),
        ]
        // The same backend also listens in RevenueCat's webhook format (a backend moving from RevenueCat).
        var revenueCat = IntegrationConfiguration(id: "demo-revenuecat", type: .revenuecat)
        revenueCat.url = "http://127.0.0.1:\(receiverPort)/revenuecat"
        revenueCat.authorization = Self.revenueCatAuthorization
        app.integrations = [revenueCat]
        for (index, url) in settings.revenueCatWebhooks.enumerated() {
            var more = IntegrationConfiguration(id: "revenuecat-\(index + 1)", type: .revenuecat)
            more.url = url
            more.authorization = Self.revenueCatAuthorization
            app.integrations.append(more)
        }
        app.revenueCat = RevenueCatSettings(
            sdkKeys: [revenueCatSDKKey], secretKeys: [APIKeyConfiguration(key: revenueCatSecretKey, role: .app)], projectId: Self.appId)
        return ServerConfiguration(
            host: "127.0.0.1", port: settings.port, dataDirectory: directory.appendingPathComponent("data").path, apps: [app],
            logLevel: "error")
    }

    /// The customer events the demo's backend takes (every transition and retention answer, no
    /// problems or tests).
    static let customerEventTypes = Transition.Kind.all.map(\.rawValue) + EventType.retentionEvents.map(\.rawValue)

    /// How the server reports the demo's business: in US dollars, with the simulator's exchange
    /// rates for the other storefronts' currencies.
    var analytics: AnalyticsConfiguration {
        AnalyticsConfiguration(reportingCurrency: "USD", exchangeRates: SimulatedStorefront.demoExchangeRates)
    }
}
