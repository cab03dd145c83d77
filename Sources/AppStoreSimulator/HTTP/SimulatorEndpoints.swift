import AppStoreModels
import AppStoreVerification
import Foundation
import Hummingbird
import Logging

/// The simulated App Store's HTTP face: Apple's App Store Server API paths and the legacy
/// `verifyReceipt` endpoints, answered from a ``SimulatedAppStore`` with data signed by a
/// ``SimulatorSigner`` at the ``SimulationClock``'s instant.
///
/// API requests are authenticated like Apple's (ES256 bearer tokens of known keys, checked
/// against real time) and rate limited per endpoint like Apple's; errors carry Apple's codes.
/// Mount the routes on a router of your own with ``addRoutes(to:)``, or run them alone with
/// ``buildApplication(host:port:logger:onServerRunning:)``.
public struct SimulatorEndpoints: Sendable {
    /// The simulated App Store the answers come from (and the few writes go to).
    public let store: SimulatedAppStore
    /// Signs transactions, renewal infos, notifications and receipts.
    public let signer: SimulatorSigner
    /// The simulated time every signed value is dated with.
    public let clock: SimulationClock
    /// Credentials, shared secret, rate limits and hooks.
    public let configuration: SimulatorHTTPConfiguration

    let tokenValidator: APITokenValidator
    let rateLimiter: SimulatorRateLimiter
    let extensions = RenewalExtensionLedger()
    /// The Retention Messaging content (images, messages, defaults, real-time URL) of this app.
    public let retentionMessaging = RetentionMessagingStore()
    let receiptVerifier: ReceiptVerifier

    /// Creates the endpoints of one simulated app.
    ///
    /// - Throws: when the receipt roots (configured, or the signer's receipt authority root)
    ///   are not DER certificates.
    public init(store: SimulatedAppStore, signer: SimulatorSigner, clock: SimulationClock, configuration: SimulatorHTTPConfiguration) throws {
        self.store = store
        self.signer = signer
        self.clock = clock
        self.configuration = configuration
        tokenValidator = APITokenValidator(
            issuerId: configuration.issuerId, bundleId: store.bundleId, keys: configuration.keys,
            maximumLifetime: configuration.maximumTokenLifetime)
        rateLimiter = SimulatorRateLimiter(limits: configuration.rateLimits, sandbox: store.environment == .sandbox)
        let roots = try configuration.receiptRootCertificates ?? [signer.receiptAuthority.rootCertificateDER]
        receiptVerifier = try ReceiptVerifier(rootCertificates: roots)
    }

    /// Adds every endpoint to `router`.
    public func addRoutes(to router: Router<BasicRequestContext>) {
        addTransactionRoutes(to: router)
        addSubscriptionRoutes(to: router)
        addNotificationRoutes(to: router)
        addRetentionMessagingRoutes(to: router)
        router.post("/verifyReceipt") { request, _ in try await verifyReceipt(request, endpoint: .production) }
        router.post("/sandbox/verifyReceipt") { request, _ in try await verifyReceipt(request, endpoint: .sandbox) }
    }

    /// An application serving only these endpoints.
    ///
    /// - Parameters:
    ///   - host: the address to bind; loopback by default.
    ///   - port: the port; 0 lets the system choose (``onServerRunning`` learns which).
    ///   - onServerRunning: called with the bound port once the server accepts connections.
    public func buildApplication(
        host: String = "127.0.0.1", port: Int = 0, logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        addRoutes(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "simulated-app-store"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger ?? Logger(label: "simulated-app-store"))
    }

    /// Wraps an API handler with Apple's token check, rate limit and error answers.
    func api(
        _ endpoint: SimulatorAPIEndpoint,
        _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) -> @Sendable (Request, BasicRequestContext) async throws -> Response {
        { [tokenValidator, rateLimiter, configuration] request, context in
            let now = configuration.wallClock()
            guard tokenValidator.validate(authorization: request.headers[.authorization], now: now) == .accepted else {
                return SimulatorAPIError.unauthenticated.response
            }
            if let renewal = rateLimiter.admit(endpoint, now: now) {
                return SimulatorAPIError.rateLimited(until: renewal).response
            }
            do {
                return try await handler(request, context)
            } catch let error as SimulatorAPIError {
                return error.response
            }
        }
    }

    /// Decodes a JSON request body, or fails with Apple's 400.
    func decodeBody<Body: Decodable>(_ type: Body.Type, from request: Request) async throws -> Body {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        do {
            return try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
        } catch {
            throw SimulatorAPIError.malformedBody("the body is not a valid \(Body.self)")
        }
    }

    /// Signs a transaction at the simulation's now.
    func sign(_ transaction: JWSTransactionDecodedPayload) throws -> String {
        try signer.signTransaction(transaction, signedDate: clock.now)
    }

    /// Hands a notification the endpoints created to the delivery hook.
    func created(_ record: NotificationRecord) async {
        await configuration.onNotificationCreated?(record)
    }
}
