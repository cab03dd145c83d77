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
    var intake: FactIntake { FactIntake(store: store) }
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
        app.post("customers/:customerId/tokens") { request, context in try await mintCustomerToken(request, context) }
        addSupportRoutes(to: app)
        addOfferRoutes(to: app)
    }

    // MARK: - Access

    /// The caller's principal for `appId`: 401 without a valid key or customer token, 404 when
    /// the key belongs to another app (another tenant's data does not exist for it), 403 when an
    /// admin key is needed, or when a customer token is used where it may not be.
    ///
    /// `customer` says whom the route acts for: a customer token is accepted only when it is
    /// that customer's (`.body`: the handler checks the body's customer against the token;
    /// routes with `.none` take keys alone).
    func authorize(
        _ request: Request, _ context: BasicRequestContext, admin: Bool = false, customer: CustomerScope = .none
    ) throws -> (AppRuntime, APIPrincipal) {
        guard let credential = Self.bearerCredential(request) else { throw APIError.unauthorized }
        let appId = try pathParameter(context, "appId")
        guard let principal = apps.authenticate(credential, appId: appId, now: clock()) else { throw APIError.unauthorized }
        guard principal.appId == appId, let app = apps.apps[appId] else { throw APIError.notFound }
        if let tokenCustomer = principal.customerId {
            switch customer {
            case .path(let id) where !admin && id == tokenCustomer: break
            case .body where !admin: break
            default: throw Self.customerTokenRefused
            }
        } else if admin, principal.role != .admin {
            throw APIError(.forbidden, code: .forbidden, message: "this action needs an admin key")
        }
        return (app, principal)
    }

    /// Whom a route acts for, as far as customer tokens go.
    enum CustomerScope {
        /// Nobody in particular: keys only.
        case none
        /// The customer in the path.
        case path(String)
        /// The customer the body names (the handler compares it with the token's).
        case body
    }

    static let customerTokenRefused = APIError(
        .forbidden, code: .forbidden, message: "a customer token may only read and act for its own customer")

    /// The credential of `Authorization: Bearer <credential>` (the scheme in any case).
    static func bearerCredential(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let credential = trimmed.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return credential.isEmpty ? nil : credential
    }

    /// A path parameter, percent-decoded (`a%20b` and its decoded form name the same thing)
    /// and checked: 1 to 256 bytes, no control characters.
    func pathParameter(_ context: BasicRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        guard let value = raw.removingPercentEncoding, (1...256).contains(value.utf8.count),
            !value.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        else {
            throw APIError.badRequest("\(name) must be 1 to 256 characters (percent-encoded in the path) without control characters")
        }
        return value
    }

    func customerId(_ context: BasicRequestContext) throws -> String {
        let id = try pathParameter(context, "customerId")
        guard id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
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
                throw APIError(.requestTimeout, code: .requestTimeout, message: "the request body did not arrive in time")
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
        let id = try customerId(context)
        let (app, _) = try authorize(request, context, customer: .path(id))
        guard try await store.customerExists(appId: app.id, customerId: id) else { throw APIError.notFound }
        return JSONBody.response(value: try await customerState(app: app, customerId: id))
    }

    func subscription(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (app, _) = try authorize(request, context)
        let chain = try pathParameter(context, "originalTransactionId")
        guard (1...128).contains(chain.utf8.count) else { throw APIError.badRequest("originalTransactionId is too long") }
        let entries = try await store.ledger(appId: app.id, originalTransactionId: chain)
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: clock())
        guard let subscription = state.subscription(chain) else { throw APIError.notFound }
        return JSONBody.response(value: subscription)
    }

    func events(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try customerId(context)
        let (app, _) = try authorize(request, context, customer: .path(id))
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
