import AppStoreModels
import Foundation

/// The live App Store Server API client of one app in one environment.
///
/// Every call signs (or reuses) an ES256 bearer token, waits for a slot in the shared
/// ``RateBudget``, sends through the injected ``HTTPTransport``, and retries Apple's retryable
/// errors, 429 and 5xx answers and transport failures under its ``RetryPolicy``, honouring
/// `Retry-After`. Time and sleeping come from the injected ``APIClock``.
public struct AppStoreServerAPIClient: AppStoreServerAPIClientProtocol {
    /// Who the client is and where it sends.
    public struct Configuration: Sendable {
        /// The In-App Purchase key that signs the bearer tokens.
        public var key: InAppPurchaseKey
        /// The issuer id of the team's App Store Connect keys.
        public var issuerId: String
        /// The app's bundle identifier.
        public var bundleId: String
        /// The environment; chooses Apple's host and the rate budget's share.
        public var environment: AppStoreEnvironment
        /// Where requests go: Apple's host for the environment unless overridden (a simulator).
        public var baseURL: URL
        /// When to retry.
        public var retryPolicy: RetryPolicy
        /// The `User-Agent` header.
        public var userAgent: String

        /// Apple's production host.
        public static let productionURL = URL(string: "https://api.storekit.apple.com")!
        /// Apple's sandbox host.
        public static let sandboxURL = URL(string: "https://api.storekit-sandbox.apple.com")!

        /// Configures a client; `baseURL` is required for environments other than production
        /// and sandbox.
        public init(
            key: InAppPurchaseKey, issuerId: String, bundleId: String, environment: AppStoreEnvironment,
            baseURL: URL? = nil, retryPolicy: RetryPolicy = RetryPolicy(), userAgent: String = "storekeeper/1"
        ) throws(AppStoreServerAPIError) {
            let url: URL
            switch (baseURL, environment) {
            case (let explicit?, _): url = explicit
            case (nil, .production): url = Self.productionURL
            case (nil, .sandbox): url = Self.sandboxURL
            default:
                throw AppStoreServerAPIError(.configuration, "environment \(environment.rawValue) has no Apple host; pass a baseURL")
            }
            self.key = key
            self.issuerId = issuerId
            self.bundleId = bundleId
            self.environment = environment
            self.baseURL = url
            self.retryPolicy = retryPolicy
            self.userAgent = userAgent
        }
    }

    public let configuration: Configuration
    let transport: any HTTPTransport
    let rateBudget: RateBudget
    let clock: any APIClock
    let random: @Sendable () -> Double
    let tokens: APITokenIssuer

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - rateBudget: the process-wide budget; share one instance among all clients.
    ///   - random: jitter source in `0..<1` (tests pass a constant).
    public init(
        configuration: Configuration,
        transport: any HTTPTransport = AsyncHTTPClientTransport(),
        rateBudget: RateBudget,
        clock: any APIClock = SystemAPIClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.rateBudget = rateBudget
        self.clock = clock
        self.random = random
        self.tokens = APITokenIssuer(key: configuration.key, issuerId: configuration.issuerId, bundleId: configuration.bundleId)
    }
}
