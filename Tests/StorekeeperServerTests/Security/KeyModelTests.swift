import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StorekeeperApps
import StorekeeperServer
import Testing

/// App and admin keys are for the operator's backend; the app on a device gets a customer token
/// that reads and acts for one customer only, until it expires.
@Suite("Security: keys, customer tokens and paths")
struct KeyModelTests {
    static func mint(
        _ client: any TestClientProtocol, customer: String, key: String = Fixture.alphaKey, app: String = "alpha", body: String? = nil
    ) async throws -> String {
        let response = try await client.call(.post, "/v1/apps/\(app)/customers/\(customer)/tokens", key: key, body: body)
        #expect(response.status == 201, "\(response.text)")
        return try #require(response.json["token"] as? String)
    }

    @Test("a customer token reads and acts for its own customer only", arguments: ServerBackend.available)
    func customerTokenScope(backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            try await OfferRoutesTests.subscribe("alice", harness, client)
            let alice = try await Self.mint(client, customer: "alice")
            #expect(alice.hasPrefix("skc1."))
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice", key: alice).status == 200)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice/events", key: alice).status == 200)
            let t0 = Fixture.t0
            let tx = try SignedData.transaction(id: "8200001", original: "8200001", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(tx))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/alice/purchases", key: alice, body: purchase).status == 200)
            let offer = #"{"customerId":"alice","productId":"pro.monthly","offerId":"o1","appAccountToken":"\#(OfferRoutesTests.token)"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/offers/sign", key: alice, body: offer).status == 200)

            // Everything else: another customer, other routes, admin routes.
            let forbidden: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/v1/apps/alpha/customers/bob", nil), (.get, "/v1/apps/alpha/customers/bob/events", nil),
                (.post, "/v1/apps/alpha/customers/bob/purchases", purchase),
                (.post, "/v1/apps/alpha/offers/sign", offer.replacingOccurrences(of: "\"alice\"", with: "\"bob\"")),
                (.get, "/v1/apps/alpha/subscriptions/8100001", nil), (.get, "/v1/apps/alpha/notifications", nil),
                (.post, "/v1/apps/alpha/customers/alice/grants", #"{"productId":"pro.lifetime","reason":"free"}"#),
                (.post, "/v1/apps/alpha/customers/alice/tokens", nil), (.get, "/v1/apps/alpha/notifications/1", nil),
            ]
            for (method, uri, body) in forbidden {
                let response = try await client.call(method, uri, key: alice, body: body)
                #expect(response.status == 403, "\(method) \(uri): \(response.status)")
            }
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/bob", key: Fixture.alphaKey).status == 404)
        }
    }

    @Test("expired, tampered and other apps' tokens are refused with 401", arguments: ServerBackend.available)
    func tokenValidity(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            #expect(
                try await client.call(
                    .post, "/v1/apps/alpha/customers/alice/grants", key: Fixture.alphaAdmin,
                    body: #"{"productId":"pro.lifetime","reason":"gift"}"#
                ).status == 201)
            let token = try await Self.mint(client, customer: "alice", body: #"{"expiresIn": 120}"#)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice", key: token).status == 200)
            var tampered = Array(token)
            let index = tampered.index(tampered.startIndex, offsetBy: 8)
            tampered[index] = tampered[index] == "A" ? "B" : "A"
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice", key: String(tampered)).status == 401)
            let gamma = try await Self.mint(client, customer: "alice", key: Fixture.gammaKey, app: "gamma")
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice", key: gamma).status == 401)
            #expect(try await client.call(.get, "/v1/apps/gamma/customers/alice", key: token).status == 401)
            for bad in [#"{"expiresIn": 5}"#, #"{"expiresIn": 99999999}"#, #"{"expiresIn": "x"}"#] {
                #expect(try await client.call(.post, "/v1/apps/alpha/customers/alice/tokens", key: Fixture.alphaKey, body: bad).status == 400)
            }
            harness.clock.set(Fixture.t0 + 121)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice", key: token).status == 401)
            #expect(!token.contains("alice"))
        }
    }

    @Test("the Bearer scheme matches in any case, and percent-encoded path parameters name the decoded value", arguments: ServerBackend.available)
    func schemeAndPaths(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { _, client in
            let grant = #"{"productId":"pro.lifetime","reason":"gift"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/caf%C3%A9/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            for scheme in ["bearer", "BEARER", "Bearer", "  bEaReR  "] {
                let response = try await client.execute(
                    uri: "/v1/apps/alpha/customers/café", method: .get, headers: [.authorization: "\(scheme) \(Fixture.alphaKey)"])
                #expect(response.status == .ok, "\(scheme)")
            }
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/caf%c3%a9", key: Fixture.alphaKey).status == 200)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/a%20b", key: Fixture.alphaKey).status == 400)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/a%zzb", key: Fixture.alphaKey).status == 400)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/a%0Ab", key: Fixture.alphaKey).status == 400)
            let basic = try await client.execute(
                uri: "/v1/apps/alpha/customers/café", method: .get, headers: [.authorization: "Basic \(Fixture.alphaKey)"])
            #expect(basic.status == .unauthorized)
        }
    }

    @Test(
        "a revocation is filed under the transaction's owner: unknown 422, another customer's 409, and both views agree",
        arguments: ServerBackend.available)
    func revocationsResolveOwner(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            try await OfferRoutesTests.subscribe("alice", harness, client)
            harness.clock.set(Fixture.t0 - 20 * Fixture.day)
            #expect(try await client.status("alpha", "8100001", key: Fixture.alphaKey) == "active")
            func revoke(_ customer: String, _ transaction: String) async throws -> (status: Int, json: [String: Any], text: String) {
                try await client.call(
                    .post, "/v1/apps/alpha/customers/\(customer)/grants", key: Fixture.alphaAdmin,
                    body: #"{"action":"revoke","transactionId":"\#(transaction)","reason":"chargeback"}"#)
            }
            #expect(try await revoke("mallory", "8100001").status == 409)
            #expect(try await revoke("alice", "999").status == 422)
            #expect(try await client.status("alpha", "8100001", key: Fixture.alphaKey) == "active")
            #expect(try await revoke("alice", "8100001").status == 201)
            #expect(try await client.status("alpha", "8100001", key: Fixture.alphaKey) == "revoked")
            let customer = try await client.call(.get, "/v1/apps/alpha/customers/alice", key: Fixture.alphaKey)
            #expect((customer.json["subscriptions"] as? [[String: Any]])?.first?["status"] as? String == "revoked")
        }
    }

    @Test("the In-App Purchase key is read once at start: offers are still signed after the file is gone")
    func signingKeyReadOnce() async throws {
        let apple = AppleAccess()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sk-key-\(UUID().uuidString).p8")
        try Data(apple.key.pemRepresentation.utf8).write(to: file)
        let configure: (inout ServerConfiguration) throws -> Void = { configuration in
            try apple.configure(&configuration)
            configuration.apps[0].appStoreServerAPI?.privateKey = nil
            configuration.apps[0].appStoreServerAPI?.privateKeyPath = file.path
        }
        try await ServerHarness.run(
            .sqlite,
            configure: configure, appleClients: apple.clients
        ) { harness, client in
            try FileManager.default.removeItem(at: file)
            try await OfferRoutesTests.subscribe("alice", harness, client)
            let offer = #"{"customerId":"alice","productId":"pro.monthly","offerId":"o1","appAccountToken":"\#(OfferRoutesTests.token)"}"#
            let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: offer)
            #expect(response.status == 200, "\(response.text)")
        }
    }
}
