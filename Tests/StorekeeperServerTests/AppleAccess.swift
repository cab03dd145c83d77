import AppStoreServerAPI
import AppStoreServerAPITesting
import Crypto
import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import Testing

/// App alpha with App Store Server API credentials (a fresh key), its live client talking to a
/// scripted Apple, so tests see the exact requests Apple would get.
struct AppleAccess: Sendable {
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let keyId = "TESTKEY001"
    let key = P256.Signing.PrivateKey()
    let transport = ScriptedTransport()

    func configure(_ configuration: inout ServerConfiguration) throws {
        let index = try #require(configuration.apps.firstIndex { $0.id == "alpha" })
        configuration.apps[index].appStoreServerAPI = AppStoreAPISettings(
            issuerId: Self.issuerId, keyId: Self.keyId, privateKey: key.pemRepresentation, environment: "Sandbox")
    }

    func clients(_ configuration: ServerConfiguration) throws -> AppleClients {
        // Apple's sandbox budget (a tenth of production) would hold a second test-status call 10 s.
        try AppleClients.live(
            configuration: configuration, rateBudget: RateBudget(configuration: .init(sandboxFactor: 100)), transport: transport)
    }

    /// Runs `body` against a server whose alpha app talks to this Apple.
    func run(_ backend: ServerBackend, _ body: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void) async throws {
        try await ServerHarness.run(backend, configure: configure, appleClients: clients, body)
    }

    /// The JSON body of Apple's `index`th request.
    func sentBody(_ index: Int) async throws -> [String: Any] {
        let requests = await transport.requests
        let data = try #require(requests[index].body)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `error.code` of a JSON error body.
    var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
}
