import AppStoreModels
import AppStoreServerAPI
import AppStoreTestSigning
import AppStoreVerification
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppStoreSimulator

/// A small simulated App Store built by hand for the HTTP endpoint tests: two accounts, a
/// weekly subscription chain of 25 transactions (active), a refunded and a kept consumable, an
/// expired monthly subscription, a non-consumable, and notifications with send attempts.
struct SimulatorHTTPFixture {
    static let start = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z
    static let bundleId = "com.example.simulated"
    static let appAppleId: Int64 = 1_234_567_890
    static let issuerId = "5a3c1e7f-0b1c-4d2e-9f00-123456789abc"
    static let keyId = "SIMKEY0001"
    static let sharedSecret = "0123456789abcdef0123456789abcdef"
    static let day: TimeInterval = 86_400

    /// Authorities and the API key, generated once (RSA keys are slow to make).
    struct Keys: Sendable {
        var certificateAuthority: TestCertificateAuthority
        var receiptAuthority: ReceiptSigningAuthority
        var apiKey: P256.Signing.PrivateKey
    }

    static let sharedKeys = Result { () throws -> Keys in
        Keys(
            certificateAuthority: try TestCertificateAuthority.generate(
                notBefore: start.addingTimeInterval(-1000 * day), notAfter: start.addingTimeInterval(1000 * day)),
            receiptAuthority: try ReceiptSigningAuthority.generate(
                validFrom: start.addingTimeInterval(-1000 * day), validUntil: start.addingTimeInterval(1000 * day)),
            apiKey: P256.Signing.PrivateKey())
    }

    let keys: Keys
    let clock: SimulationClock
    let store: SimulatedAppStore
    let signer: SimulatorSigner
    var configuration: SimulatorHTTPConfiguration

    init(
        environment: AppStoreEnvironment = .production, populate: Bool = true,
        configure: (inout SimulatorHTTPConfiguration) -> Void = { _ in }
    ) throws {
        keys = try Self.sharedKeys.get()
        clock = SimulationClock(start: Self.start)
        store = SimulatedAppStore(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environment: environment)
        signer = SimulatorSigner(certificateAuthority: keys.certificateAuthority, receiptAuthority: keys.receiptAuthority)
        configuration = SimulatorHTTPConfiguration(
            issuerId: Self.issuerId, keys: [Self.keyId: keys.apiKey.publicKey], sharedSecret: Self.sharedSecret,
            rateLimits: .off)
        configure(&configuration)
        if populate { try SimulatorHTTPFixture.populate(store: store, signer: signer) }
    }

    /// Runs `body` with the endpoints served on a loopback port.
    func withServer<T: Sendable>(_ body: @Sendable (URL, SimulatorEndpoints) async throws -> T) async throws -> T {
        let endpoints = try SimulatorEndpoints(store: store, signer: signer, clock: clock, configuration: configuration)
        let router = Router(context: BasicRequestContext.self)
        endpoints.addRoutes(to: router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            let port = try #require(client.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            return try await body(url, endpoints)
        }
    }

    /// The transport of the tests' clients: a loopback answer is never slow, but the test run
    /// shares two cores among hundreds of tests, so the deadline is generous (30 s by default).
    static let loopback = AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(120)))

    /// The real App Store Server API client pointed at the simulator, without retries and
    /// without its own rate budget getting in the way.
    func client(
        baseURL: URL, keyId: String = keyId, bundleId: String = bundleId, key: P256.Signing.PrivateKey? = nil
    ) throws -> AppStoreServerAPIClient {
        let limits = Dictionary(uniqueKeysWithValues: APIEndpoint.all.map { ($0.name, RateLimit(requests: 10_000, per: .seconds(1))) })
        return AppStoreServerAPIClient(
            configuration: try .init(
                key: InAppPurchaseKey(keyId: keyId, privateKey: key ?? keys.apiKey), issuerId: Self.issuerId, bundleId: bundleId,
                environment: store.environment, baseURL: baseURL, retryPolicy: RetryPolicy(maximumAttempts: 1)),
            transport: Self.loopback, rateBudget: RateBudget(configuration: .init(productionLimits: limits, sandboxFactor: 1)))
    }

    /// A verifier trusting the test CA, for this store's app and environment.
    func verifier() throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [keys.certificateAuthority.rootCertificateDER], bundleId: Self.bundleId,
            appAppleId: Self.appAppleId, environment: store.environment)
    }
}
