import AppStoreModels
import Foundation

/// The request budget of every App Store Server API endpoint, per app and environment, shared
/// by all clients of the process.
///
/// Apple limits each endpoint per app (50, 20, 10 or 1 requests per second; a tenth of that in
/// the sandbox) and answers 429 beyond it. Create **one** budget per process and hand it to every
/// ``AppStoreServerAPIClient``: each request reserves a send slot before it goes out, so
/// concurrent requests queue instead of storming Apple, and a 429's `Retry-After` holds back
/// every request to that endpoint, not only the one that received it.
public actor RateBudget {
    /// The limits used.
    public struct Configuration: Sendable {
        /// Production limits by endpoint name (``APIEndpoint/name``); endpoints not listed use
        /// their ``APIEndpoint/productionRate``.
        public var productionLimits: [String: RateLimit]
        /// The share of the production limit granted in the sandbox (Apple: 10%).
        public var sandboxFactor: Double
        /// The share of the production limit granted elsewhere (Xcode, local testing, a simulator).
        public var otherEnvironmentFactor: Double
        /// A factor on every limit, in every environment: 1 against Apple; an App Store
        /// simulator running its clock N times faster than real time allows N.
        public var timeCompression: Double

        public init(
            productionLimits: [String: RateLimit] = [:], sandboxFactor: Double = 0.1, otherEnvironmentFactor: Double = 1,
            timeCompression: Double = 1
        ) {
            self.productionLimits = productionLimits
            self.sandboxFactor = sandboxFactor
            self.otherEnvironmentFactor = otherEnvironmentFactor
            self.timeCompression = max(1, timeCompression)
        }
    }

    /// Which bucket a request draws from.
    public struct Key: Hashable, Sendable {
        public var bundleId: String
        public var environment: AppStoreEnvironment
        public var endpoint: String

        public init(bundleId: String, environment: AppStoreEnvironment, endpoint: String) {
            self.bundleId = bundleId
            self.environment = environment
            self.endpoint = endpoint
        }
    }

    public let configuration: Configuration
    private var buckets: [Key: SlidingWindowBucket] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The limit that applies to `endpoint` in `environment`.
    public nonisolated func limit(for endpoint: APIEndpoint, environment: AppStoreEnvironment) -> RateLimit {
        var production = configuration.productionLimits[endpoint.name] ?? RateLimit(perSecond: endpoint.productionRate)
        if configuration.timeCompression > 1 { production = production.scaled(by: configuration.timeCompression) }
        switch environment {
        case .production: return production
        case .sandbox: return production.scaled(by: configuration.sandboxFactor)
        default: return production.scaled(by: configuration.otherEnvironmentFactor)
        }
    }

    /// Reserves the next send slot for `endpoint`; the caller waits until the returned instant.
    public func reserve(_ endpoint: APIEndpoint, bundleId: String, environment: AppStoreEnvironment, now: Date) -> Date {
        let key = Key(bundleId: bundleId, environment: environment, endpoint: endpoint.name)
        var bucket = buckets[key] ?? SlidingWindowBucket(limit: limit(for: endpoint, environment: environment))
        let slot = bucket.reserve(now: now)
        buckets[key] = bucket
        return slot
    }

    /// Holds back every request to `endpoint` until `date` (after a 429).
    public func pause(_ endpoint: APIEndpoint, bundleId: String, environment: AppStoreEnvironment, until date: Date) {
        let key = Key(bundleId: bundleId, environment: environment, endpoint: endpoint.name)
        var bucket = buckets[key] ?? SlidingWindowBucket(limit: limit(for: endpoint, environment: environment))
        bucket.pause(until: date)
        buckets[key] = bucket
    }
}
