import Foundation
import HTTPTypes
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

/// The request context of RevenueCat's SDK routes: the app whose public SDK key
/// (`Authorization: Bearer appl_…`) ``RevenueCatSDKAuthenticator`` found. An SDK key opens
/// only these routes, for one app's customers, one customer per request.
package struct RevenueCatSDKContext: ChildRequestContext {
    package typealias ParentContext = APIRequestContext
    package var coreContext: CoreRequestContextStorage
    package var app: AppRuntime?

    package init(context: APIRequestContext) throws {
        coreContext = context.coreContext
    }

    package var responseEncoder: JSONEncoder { JSONBody.encoder() }

    /// The app the SDK key belongs to (401 on a route without the authenticator).
    package func sdkApp() throws -> AppRuntime {
        guard let app else { throw RevenueCatSDKError.invalidCredentials }
        return app
    }

    /// The app user id of the path, percent-decoded and checked (``StorekeeperAPI/checkedAppUserId(_:)``).
    package func appUserId() throws -> String {
        let raw = try parameters.require("appUserId")
        guard let value = raw.removingPercentEncoding else {
            throw RevenueCatSDKError(.badRequest, code: .invalidAppUserId, message: "the app user id is not percent-encoded correctly")
        }
        return try StorekeeperAPI.checkedAppUserId(value)
    }
}

/// Finds the app of `Authorization: Bearer <SDK key>` among the apps' `revenueCat.sdkKeys`
/// (constant time); 401 with RevenueCat's invalid-credentials code for anything else,
/// Storekeeper's own keys and customer tokens included.
package struct RevenueCatSDKAuthenticator: RouterMiddleware {
    package typealias Context = RevenueCatSDKContext
    package let apps: AppDirectory

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = APIAuthenticator.bearerCredential(request), let app = apps.revenueCatApp(sdkKey: key) else {
            throw RevenueCatSDKError.invalidCredentials
        }
        var context = context
        context.app = app
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    /// RevenueCat's SDK: whether the app buys through StoreKit 2 (`true`).
    static let revenueCatStoreKit2Enabled = Self("X-StoreKit2-Enabled")!
    /// RevenueCat's SDK: the App Store storefront's country (`USA`).
    static let revenueCatStorefront = Self("X-Storefront")!
    /// RevenueCat's SDK: the app's version (`CFBundleShortVersionString`).
    static let revenueCatClientVersion = Self("X-Client-Version")!
}

extension StorekeeperAPI {
    /// RevenueCat's SDK routes (v1), under the RevenueCat prefix: what an app built with
    /// RevenueCat's SDK calls once its `proxyURL` points at Storekeeper, answered from
    /// Storekeeper's ledger, engine, catalog and offerings. Every failure is RevenueCat-shaped
    /// (``RevenueCatSDKError``). What Storekeeper has no concept for answers a clear error, or
    /// an honest empty answer where the SDK takes one (virtual currencies: none).
    package func addRevenueCatSDKRoutes(to router: RouterGroup<APIRequestContext>) {
        let sdk = router.group(context: RevenueCatSDKContext.self).add(middleware: RevenueCatSDKErrorMiddleware<RevenueCatSDKContext>())
        // The SDK's health check is not authenticated.
        sdk.get("v1/health") { _, _ in JSONBody.response(json: ByteBuffer(string: "{}")) }
        let routes = sdk.group().add(middleware: RevenueCatSDKAuthenticator(apps: apps))
        routes.get("v1/subscribers/:appUserId", use: revenueCatCustomerInfo)
            .post("v1/subscribers/identify", use: revenueCatLogIn)
            .post("v1/subscribers/:appUserId/alias", use: revenueCatAlias)
            .post("v1/subscribers/:appUserId/attributes", use: revenueCatAttributes)
            .get("v1/subscribers/:appUserId/offerings", use: revenueCatOfferings)
            .post("v1/subscribers/:appUserId/intro_eligibility", use: revenueCatIntroEligibility)
            .post("v1/subscribers/:appUserId/restore/eligibility", use: revenueCatRestoreEligibility)
            .post("v1/receipts", use: revenueCatReceipt)
            .post("v1/offers", use: revenueCatOffer)
            .get("v1/product_entitlement_mapping", use: revenueCatProductEntitlementMapping)
            .get("v1/subscribers/:appUserId/virtual_currencies") { _, context in
                _ = try context.appUserId()
                return JSONBody.response(json: ByteBuffer(string: "{\"virtual_currencies\":{}}"))
            }
        let notServed: [(String, String)] = [
            ("v1/subscribers/:appUserId/attribution", "attribution data"),
            ("v1/subscribers/:appUserId/adservices_attribution", "Apple Search Ads attribution"),
            ("v1/subscribers/:appUserId/ads/reward_verifications/:transactionId", "ad reward verification"),
            ("v1/subscribers/:appUserId/health_report", "the SDK health report"),
            ("v1/subscribers/:appUserId/health_report_availability", "the SDK health report"),
            ("v1/subscribers/redeem_purchase", "web purchase redemption"),
            ("v1/customercenter/support/create-ticket", "Customer Center support tickets"),
            ("v1/customercenter/:appUserId", "Customer Center configuration"),
            ("v1/events", "paywall events"),
            ("v1/diagnostics", "SDK diagnostics"),
            ("v1/config/**", "RevenueCat's remote configuration"),
            ("v2/config", "RevenueCat's remote configuration"),
            ("v2/config/**", "RevenueCat's remote configuration"),
            ("rcbilling/**", "RevenueCat Billing (web products)"),
            ("v1/**", "this RevenueCat route"),
        ]
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]
        for (path, feature) in notServed {
            let answer: @Sendable (Request, RevenueCatSDKContext) async throws -> Response = { _, _ in throw RevenueCatSDKError.notServed(feature) }
            for method in methods { routes.on(RouterPath(path), method: method, use: answer) }
        }
        // A served route asked with another method: 405, not the router's bare 404.
        let served: [(HTTPRequest.Method, String)] = [
            (.get, "v1/health"), (.get, "v1/subscribers/:appUserId"), (.post, "v1/subscribers/identify"),
            (.post, "v1/subscribers/:appUserId/alias"), (.post, "v1/subscribers/:appUserId/attributes"),
            (.get, "v1/subscribers/:appUserId/offerings"), (.post, "v1/subscribers/:appUserId/intro_eligibility"),
            (.post, "v1/subscribers/:appUserId/restore/eligibility"), (.post, "v1/receipts"), (.post, "v1/offers"),
            (.get, "v1/product_entitlement_mapping"), (.get, "v1/subscribers/:appUserId/virtual_currencies"),
        ]
        for (allowed, path) in served {
            let answer: @Sendable (Request, RevenueCatSDKContext) async throws -> Response = { _, _ in
                throw RevenueCatSDKError(.methodNotAllowed, code: .badRequest, message: "\(path) takes \(allowed.rawValue) only")
            }
            for method in methods where method != allowed { sdk.on(RouterPath(path), method: method, use: answer) }
        }
    }

    /// An app user id as RevenueCat accepts one: 1 to 256 bytes, no control characters (7220
    /// empty, 7256 otherwise).
    package static func checkedAppUserId(_ value: String) throws -> String {
        guard !value.isEmpty else { throw RevenueCatSDKError(.badRequest, code: .emptyAppUserId, message: "the app user id is empty") }
        guard value.utf8.count <= 256, !value.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw RevenueCatSDKError(
                .badRequest, code: .invalidAppUserId, message: "the app user id must be 1 to 256 bytes without control characters")
        }
        return value
    }

    /// The customer a RevenueCat app user id names: the customer with that id, else the owner
    /// of that id as an `appUserId` alias (an id linked by `identify`); else the id itself, not
    /// yet known.
    package func revenueCatCustomer(app: AppRuntime, appUserId: String) async throws -> (id: String, known: Bool) {
        if try await store.customerExists(appId: app.id, customerId: appUserId) { return (appUserId, true) }
        if let owner = try await store.customer(appId: app.id, alias: CustomerAlias(kind: .appUserId, value: appUserId)) { return (owner, true) }
        return (appUserId, false)
    }

    /// The customer's RevenueCat CustomerInfo now, from its ledger (never a read replica).
    package func revenueCatCustomerInfo(app: AppRuntime, customerId: String) async throws -> RevenueCatCustomerInfo {
        let now = clock()
        let ledger = try await store.ledger(appId: app.id, customerId: customerId)
        let history = PurchaseHistory(ledger: ledger)
        let state = CustomerState(history: history, catalog: app.catalog, at: now)
        let shared = try await sharedEntitlements(app: app, customerId: customerId, now: now).map(\.entitlement)
        let attributes = try await store.customerAttributes(appId: app.id, customerId: customerId)
        return RevenueCatCustomerInfo(
            customerId: customerId, state: state, history: history, catalog: app.catalog, firstSeen: ledger.map(\.recordedAt).min(),
            shared: shared, attributes: attributes)
    }

    /// `GET v1/subscribers/{appUserId}`: the customer's CustomerInfo. An id Storekeeper does not
    /// know is a customer with nothing yet (RevenueCat answers a new subscriber the same way);
    /// nothing is written.
    package func revenueCatCustomerInfo(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let customer = try await revenueCatCustomer(app: app, appUserId: try context.appUserId())
        return try await revenueCatCustomerInfo(app: app, customerId: customer.id).response()
    }

    /// A RevenueCat request body: a JSON object within the size limit without U+0000 (400 in
    /// RevenueCat's shape otherwise).
    package func revenueCatBody(_ request: Request) async throws -> [String: Any] {
        let data = Data(buffer: try await body(request))
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw RevenueCatSDKError.badRequest("the body must be a JSON object")
        }
        if NotificationAdmission.containsNUL(object) { throw RevenueCatSDKError.badRequest("strings in the body may not contain U+0000") }
        return object
    }

    /// A body field that must be an app user id.
    static func appUserId(_ object: [String: Any], _ key: String) throws -> String {
        guard let value = object[key] as? String else { throw RevenueCatSDKError(.badRequest, code: .emptyAppUserId, message: "\(key) is required") }
        return try checkedAppUserId(value)
    }
}
