import AppStoreModels
import Foundation
import Hummingbird
import Logging
import StorekeeperStore
import SubscriptionEngine

/// The HTTP API: routes, authentication and tenant isolation. Handlers parse and check input,
/// call the store and the engine, and shape JSON; state always comes from the engine over the
/// ledger.
struct StorekeeperAPI: Sendable {
    let apps: AppDirectory
    let store: any StorekeeperStorage
    let clock: @Sendable () -> Date
    let signal: InboxSignal
    let metrics: ServerMetrics
    let maximumBodySize: Int
    /// The largest body the notification route reads.
    var maximumNotificationBodySize = 256 * 1024
    /// How long a client may take to send a request body.
    var bodyTimeout: Duration = .seconds(15)
    /// The App Store Server API clients (support and offer routes).
    var appleClients = AppleClients()

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/health") { _, _ in try await health() }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: ResponseBody(byteBuffer: OpenAPIDocument.bytes))
        }
        router.post("/verifyReceipt") { request, _ in try await verifyReceipt(request) }
        let app = router.group("v1/apps/:appId")
        addNotificationRoutes(to: app)
        app.get("subscriptions/:originalTransactionId") { request, context in try await subscription(request, context) }
        app.get("customers/:customerId") { request, context in try await customer(request, context) }
        app.get("customers/:customerId/events") { request, context in try await events(request, context) }
        app.post("customers/:customerId/purchases") { request, context in try await postPurchase(request, context) }
        app.post("customers/:customerId/grants") { request, context in try await postGrant(request, context) }
        addSupportRoutes(to: app)
        addOfferRoutes(to: app)
    }

    // MARK: - Access

    /// The caller's principal for `appId`: 401 without a valid key, 404 when the key belongs
    /// to another app (another tenant's data does not exist for it), 403 when an admin key is needed.
    func authorize(_ request: Request, _ context: BasicRequestContext, admin: Bool = false) throws -> (AppRuntime, APIPrincipal) {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { throw APIError.unauthorized }
        let key = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard let principal = apps.authenticate(key) else { throw APIError.unauthorized }
        let appId = try context.parameters.require("appId")
        guard principal.appId == appId, let app = apps.apps[appId] else { throw APIError.notFound }
        if admin, principal.role != .admin {
            throw APIError(.forbidden, code: "forbidden", message: "this action needs an admin key")
        }
        return (app, principal)
    }

    func customerId(_ context: BasicRequestContext) throws -> String {
        let id = try context.parameters.require("customerId")
        guard (1...256).contains(id.utf8.count), id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw APIError.badRequest("customerId must be 1 to 256 printable characters")
        }
        return id
    }

    func body(_ request: Request) async throws -> ByteBuffer {
        try await collectBody(request, upTo: maximumBodySize)
    }

    /// The request's body, up to `limit` bytes (413 beyond), within ``bodyTimeout`` (408 when
    /// the client sends it slower: a half-sent body never holds a handler for long).
    func collectBody(_ request: Request, upTo limit: Int) async throws -> ByteBuffer {
        let timeout = bodyTimeout
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                var request = request
                return try await request.collectBody(upTo: limit)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard case let buffer?? = try await group.next() else {
                throw APIError(.requestTimeout, code: "request_timeout", message: "the request body did not arrive in time")
            }
            return buffer
        }
    }

    // MARK: - Reads

    func health() async throws -> Response {
        do {
            try await store.ping()
            let pending = try await store.pendingCount()
            return JSONBody.response(value: ["status": "ok", "database": store.backendName, "pendingNotifications": "\(pending)"])
        } catch {
            let reason = (error as? StoreError)?.code == .unavailable
                ? "the database cannot be reached" : "the database does not answer queries"
            var response = JSONBody.response(
                status: .serviceUnavailable, value: ["status": "unavailable", "database": store.backendName, "reason": reason])
            response.headers[.retryAfter] = "5"
            return response
        }
    }

    func customerState(app: AppRuntime, customerId: String) async throws -> CustomerStateResponse {
        let entries = try await store.ledger(appId: app.id, customerId: customerId)
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: clock())
        return CustomerStateResponse(customerId: customerId, state: state, aliases: try await store.aliases(appId: app.id, customerId: customerId))
    }

    func customer(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (app, _) = try authorize(request, context)
        let id = try customerId(context)
        guard try await store.customerExists(appId: app.id, customerId: id) else { throw APIError.notFound }
        return JSONBody.response(value: try await customerState(app: app, customerId: id))
    }

    func subscription(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (app, _) = try authorize(request, context)
        let chain = try context.parameters.require("originalTransactionId")
        guard (1...128).contains(chain.utf8.count) else { throw APIError.badRequest("originalTransactionId is too long") }
        let entries = try await store.ledger(appId: app.id, originalTransactionId: chain)
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: clock())
        guard let subscription = state.subscription(chain) else { throw APIError.notFound }
        return JSONBody.response(value: subscription)
    }

    func events(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (app, _) = try authorize(request, context)
        let id = try customerId(context)
        guard try await store.customerExists(appId: app.id, customerId: id) else { throw APIError.notFound }
        let limit = try Self.limit(request)
        let events = try await store.events(appId: app.id, customerId: id, limit: limit)
        return JSONBody.response(value: ["events": events.map(EventResponse.init)])
    }

    static func limit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("limit") else { return 100 }
        guard let limit = Int(text), (1...1000).contains(limit) else { throw APIError.badRequest("limit must be between 1 and 1000") }
        return limit
    }
}
