import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation

/// A real client wired to a scripted transport and a virtual clock.
struct ClientHarness {
    static let issuerId = "issuerId"
    static let keyId = "keyId"
    static let bundleId = "com.example"

    let transport: ScriptedTransport
    let clock: TestAPIClock
    let budget: RateBudget
    let client: AppStoreServerAPIClient
    let key: InAppPurchaseKey

    init(
        environment: AppStoreEnvironment = .production,
        retryPolicy: RetryPolicy = RetryPolicy(jitter: 0),
        clock: TestAPIClock = TestAPIClock(),
        budget: RateBudget = RateBudget(),
        transport: ScriptedTransport = ScriptedTransport(),
        baseURL: URL? = nil,
        bundleId: String = ClientHarness.bundleId
    ) throws {
        key = try InAppPurchaseKey(keyId: Self.keyId, pem: Fixture.signingKeyPEM())
        self.transport = transport
        self.clock = clock
        self.budget = budget
        let configuration = try AppStoreServerAPIClient.Configuration(
            key: key, issuerId: Self.issuerId, bundleId: bundleId, environment: environment,
            baseURL: baseURL, retryPolicy: retryPolicy)
        client = AppStoreServerAPIClient(
            configuration: configuration, transport: transport, rateBudget: budget, clock: clock, random: { 0.5 })
    }
}

/// The parts of a compact JWS, decoded.
struct DecodedJWT {
    var header: [String: Any]
    var claims: [String: Any]
    var signingInput: String
    var signature: Data

    init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = Self.base64URL(parts[0]), let claims = Self.base64URL(parts[1]),
            let signature = Self.base64URL(parts[2]),
            let headerObject = try JSONSerialization.jsonObject(with: header) as? [String: Any],
            let claimsObject = try JSONSerialization.jsonObject(with: claims) as? [String: Any]
        else { throw Malformed() }
        self.header = headerObject
        self.claims = claimsObject
        self.signingInput = parts[0] + "." + parts[1]
        self.signature = signature
    }

    struct Malformed: Error {}

    static func base64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// A JSON document in canonical form (keys sorted), so documents compare as trees.
func jsonObject(_ data: Data) throws -> String {
    let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    return String(decoding: canonical, as: UTF8.self)
}
