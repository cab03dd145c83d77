import AppStoreModels
import Foundation
import Hummingbird
import Logging
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperStore
import SubscriptionEngine

/// The HTTP API: routes, authentication and tenant isolation. Handlers parse and check input,
/// call the store and the engine, and shape JSON; state always comes from the engine over the
/// ledger.
package struct StorekeeperAPI: Sendable {
    package let apps: AppDirectory
    /// What the notification route verifies and counts, shared with the inbox and the jobs.
    package let door: NotificationDoor
    package let store: any StorekeeperStorage
    /// Where reads whose answer may be a moment old go: a standby's store when the server has
    /// one, else ``store``. A customer's state is never read here.
    package var reads: any StorekeeperStorage
    /// How far the standby of ``reads`` is behind, when there is one.
    package var replication: ReplicationWatch?
    package let clock: @Sendable () -> Date
    package var intake: FactIntake { FactIntake(store: store) }
    package let signal: InboxSignal
    package let metrics: ServerMetrics
    package let maximumBodySize: Int
    /// The largest body the notification route reads.
    package var maximumNotificationBodySize = 256 * 1024
    /// How long a client may take to send a request body.
    package var bodyTimeout: Duration = .seconds(15)
    /// The App Store Server API clients (support and offer routes).
    package var appleClients = AppleClients()
    /// The key customer states are signed with, read at startup.
    package var stateSigningKey = StateSigningKeyBox()
    /// How long after its signing a customer state may serve the SDK offline.
    package var offlineWindow: TimeInterval = 10 * 86_400
    /// The JSON of the subscription states answered lately.
    package var encodedStates = EncodedStates()
    /// How many problem reports each customer may still file.
    package var problemReports = ProblemReportQuota()
    /// Where RevenueCat's SDK (v1) and REST (v2) routes are served (no slashes at the ends).
    package var revenueCatPathPrefix = "revenuecat"

    package init(
        apps: AppDirectory, door: NotificationDoor, store: any StorekeeperStorage, clock: @escaping @Sendable () -> Date, signal: InboxSignal,
        metrics: ServerMetrics, maximumBodySize: Int, appleClients: AppleClients = AppleClients()
    ) {
        self.apps = apps
        self.door = door
        self.store = store
        self.reads = store
        self.clock = clock
        self.signal = signal
        self.metrics = metrics
        self.maximumBodySize = maximumBodySize
        self.appleClients = appleClients
    }

    package func addRoutes(to router: Router<APIRequestContext>) {
        router.get("/health") { _, _ in try await health() }
        router.get("/metrics") { _, _ in
            if let replication { metrics.standby(replication) }
            await metrics.sample(store, now: clock())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: OpenAPIDocument.bytes))
        }
        router.post("/verifyReceipt", use: verifyReceipt)
        router.get("v1/projects/:projectId/customers/:customerId", use: projectCustomer)
        addRevenueCatSDKRoutes(to: router.group(RouterPath(revenueCatPathPrefix)))
        addRevenueCatV2Routes(to: router.group(RouterPath(revenueCatPathPrefix)))
        let app = router.group("v1/apps/:appId")
        // Apple calls the notification URL and the Get Retention Message endpoint without a key; every other route has an authenticator.
        app.post("notifications", use: receiveNotification)
        app.post("retention/realtime", use: answerRealtimeRequest)
        app.group().add(middleware: authenticator(.key))
            .get("subscriptions/:originalTransactionId", use: subscription)
            .get("notifications", use: listNotifications)
            .get("metrics", use: metrics)
            .get("metrics/:name", use: metricSeries)
            .get("cohorts", use: cohorts)
            .post("customers/:customerId/tokens", use: mintCustomerToken)
        app.group().add(middleware: authenticator(.pathCustomer))
            .get("customers/:customerId", use: customer)
            .get("customers/:customerId/events", use: events)
            .get("customers/:customerId/signed-state", use: signedState)
            .post("customers/:customerId/purchases", use: postPurchase)
            .post("customers/:customerId/problems", use: reportProblem)
            .post("customers/:customerId/appAccountToken", use: appAccountToken)
        let admin = app.group().add(middleware: authenticator(.admin))
        admin.get("notifications/:notificationId", use: notificationBody)
            .post("notifications/:notificationId/retry", use: retryNotification)
            .post("customers/:customerId/grants", use: postGrant)
            .post("customers/:customerId/appAccountToken/rotate", use: rotateAppAccountToken)
        addSupportRoutes(to: admin)
        addOfferingRoutes(admin: admin, customers: app.group().add(middleware: authenticator(.pathCustomer)))
        addDestinationRoutes(to: admin)
        admin.get("problems", use: listProblems)
            .post("problems/:problemId/resolve", use: resolveProblem)
        app.group().add(middleware: authenticator(.bodyCustomer))
            .post("offers/sign", use: signOffer)
            .get("state-signing-key", use: stateSigningPublicKey)
    }

    package func authenticator(_ policy: AccessPolicy) -> APIAuthenticator {
        APIAuthenticator(apps: apps, clock: clock, policy: policy)
    }

    package func body(_ request: Request) async throws -> ByteBuffer {
        try await collectBody(request, upTo: maximumBodySize)
    }

    /// The request's body, up to `limit` bytes (413 beyond), within ``bodyTimeout`` (408 when
    /// the client sends it slower: a half-sent body never holds a handler for long).
    package func collectBody(_ request: Request, upTo limit: Int) async throws -> ByteBuffer {
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

    package func health() async throws -> Response {
        let pending: Int
        do {
            // One query answers both questions (is the database there, what is pending), so an
            // outage costs a prober one connection wait, not two.
            pending = try await store.pendingCount()
        } catch {
            return unhealthy(
                (error as? StoreError)?.code == .unavailable ? "the database cannot be reached" : "the database does not answer queries")
        }
        if let failure = store.writeFailure { return unhealthy("the database cannot store writes: \(failure)") }
        var answer = ["status": "ok", "database": store.backendName, "pendingNotifications": "\(pending)"].merging(
            Self.buildFields, uniquingKeysWith: { first, _ in first })
        if let replication {
            // A lagging standby costs the primary its reads, not the server its service.
            let snapshot = replication.snapshot
            answer["standby"] =
                switch snapshot {
                case let snapshot? where snapshot.serving: "serving"
                case let snapshot? where snapshot.streaming: "lagging"
                default: "unreachable"
                }
            if let snapshot, snapshot.streaming {
                answer["standbyLagSeconds"] = String(format: "%.3f", snapshot.lagSeconds)
                answer["standbyLagBytes"] = "\(snapshot.lagBytes)"
            }
        }
        return JSONBody.response(value: answer)
    }

    /// `/health`'s 503, with why.
    private func unhealthy(_ reason: String) -> Response {
        var response = JSONBody.response(
            status: .serviceUnavailable,
            value: ["status": "unavailable", "database": store.backendName, "reason": reason].merging(
                Self.buildFields, uniquingKeysWith: { first, _ in first }))
        response.headers[.retryAfter] = "5"
        return response
    }

    /// Which build answers `/health` (healthy or not): the version, commit and build date a
    /// release stamps, so an operator sees what each server runs.
    private static let buildFields = [
        "version": BuildInfo.current.version, "commit": BuildInfo.current.commit, "built": BuildInfo.current.built,
    ]

    package func customerState(app: AppRuntime, customerId: String) async throws -> CustomerStateResponse {
        let entries = try await store.ledger(appId: app.id, customerId: customerId)
        let now = clock()
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: now)
        var response = CustomerStateResponse(
            customerId: customerId, state: state, aliases: try await store.aliases(appId: app.id, customerId: customerId))
        let shared = try await sharedEntitlements(app: app, customerId: customerId, now: now)
        if !shared.isEmpty {
            response.sharedEntitlements = shared
            response.entitlements += shared.map(\.entitlement)
        }
        return response
    }

    package func customer(_ request: Request, _ context: APIRequestContext) async throws -> CustomerStateResponse {
        let (app, id) = (try context.caller().app, try context.customerId())
        let state = try await customerState(app: app, customerId: id)
        // A customer only another app of the project knows is still this app's customer there.
        guard try await store.customerExists(appId: app.id, customerId: id) || state.sharedEntitlements != nil else { throw APIError.notFound }
        return state
    }

    package func subscription(_ request: Request, _ context: APIRequestContext) async throws -> SubscriptionResponse {
        let app = try context.caller().app
        let chain = try context.pathParameter("originalTransactionId")
        guard (1...128).contains(chain.utf8.count) else { throw APIError.badRequest("originalTransactionId is too long") }
        let entries = try await store.ledgers(appId: app.id, originalTransactionIds: [chain])[chain] ?? []
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: clock())
        guard let subscription = state.subscription(chain) else { throw APIError.notFound }
        return SubscriptionResponse(body: try encodedStates.body(appId: app.id, chain: chain, state: subscription))
    }

    package func events(_ request: Request, _ context: APIRequestContext) async throws -> [String: [EventResponse]] {
        let (app, id) = (try context.caller().app, try context.customerId())
        guard try await store.customerExists(appId: app.id, customerId: id) else { throw APIError.notFound }
        let limit = try Self.limit(request)
        let events = try await store.events(appId: app.id, customerId: id, limit: limit)
        return ["events": events.map(EventResponse.init)]
    }

    package static func limit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("limit") else { return 100 }
        guard let limit = Int(text), (1...1000).contains(limit) else { throw APIError.badRequest("limit must be between 1 and 1000") }
        return limit
    }
}
