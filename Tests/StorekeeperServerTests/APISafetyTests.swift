import AppStoreTestSigning
import Foundation
import HummingbirdTesting
import StorekeeperServer
import Testing

@Suite("API safety: keys, tenants, bad input")
struct APISafetyTests {
    @Test("wrong or missing keys get 401, another app's key gets 404, an app key cannot grant", arguments: ServerBackend.available)
    func authentication(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let grant = #"{"productId": "pro.lifetime", "reason": "support"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/c1/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/c1", key: Fixture.alphaKey).status == 200)
            let missing = try await client.call(.get, "/v1/apps/alpha/customers/c1")
            #expect(missing.status == 401)
            #expect((missing.json["error"] as? [String: Any])?["code"] as? String == "unauthorized")
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/c1", key: "alpha-app-key-0123456780").status == 401)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/c1", key: Fixture.betaKey).status == 404)
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/c1/events", key: Fixture.betaKey).status == 404)
            #expect(try await client.call(.get, "/v1/apps/alpha/notifications", key: Fixture.betaKey).status == 404)
            #expect(try await client.call(.get, "/v1/apps/beta/customers/c1", key: Fixture.betaKey).status == 404)
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/c1/grants", key: Fixture.alphaKey, body: grant).status == 403)
            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            #expect(audit.count == 1)
            #expect(audit.first.map { !$0.actor.contains(Fixture.alphaAdmin) } == true)
        }
    }

    @Test("malformed bodies get 400 with a JSON error, never a 500", arguments: ServerBackend.available)
    func malformedBodies(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { _, client in
            let bodies = ["", "{", "[]", "null", "{\"signedTransaction\": 5}", "{\"signedTransaction\":\"a\",\"receipt\":\"b\"}", "\u{0}\u{1}"]
            for body in bodies {
                let response = try await client.call(.post, "/v1/apps/alpha/customers/c1/purchases", key: Fixture.alphaKey, body: body)
                #expect(response.status == 400, "body \(body.debugDescription) got \(response.status)")
                #expect((response.json["error"] as? [String: Any])?["message"] is String)
            }
            for body in ["", "{}", "[1]", "{\"x\":1}"] {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 400)
                #expect(try await client.call(.post, "/v1/apps/alpha/customers/c1/grants", key: Fixture.alphaAdmin, body: body).status == 400)
            }
            #expect(try await client.call(.post, "/v1/apps/nope/notifications", body: "{\"signedPayload\":\"x\"}").status == 400)
            #expect(try await client.call(.get, "/v1/apps/alpha/notifications?limit=0", key: Fixture.alphaKey).status == 400)
            #expect(try await client.call(.get, "/v1/apps/alpha/notifications?state=bogus", key: Fixture.alphaKey).status == 400)
            let huge = "{\"signedPayload\":\"" + String(repeating: "a", count: 2 << 20) + "\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: huge).status == 413)
            let unknown = try await client.call(.get, "/nowhere")
            #expect(unknown.status == 404)
            #expect((unknown.json["error"] as? [String: Any])?["code"] as? String == "not_found")
            #expect(try await client.call(.post, "/verifyReceipt", body: "garbage").json["status"] as? Int == 21000)
            #expect(try await client.call(.post, "/verifyReceipt", body: "{\"receipt-data\":\"AAAA\"}").json["status"] as? Int == 21002)
        }
    }

    @Test(
        "a signed transaction from another app or a forged one is refused with a reason; a replay by another customer gets 409",
        arguments: ServerBackend.available)
    func purchases(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let t0 = Fixture.t0
            let tx = try SignedData.transaction(
                id: "p1", original: "p1", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0, token: "7F1E0C2A-0000-4000-8000-000000000001")
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(tx))\"}"
            let accepted = try await client.call(.post, "/v1/apps/alpha/customers/alice/purchases", key: Fixture.alphaKey, body: body)
            #expect(accepted.status == 200)
            #expect((accepted.json["entitlements"] as? [[String: Any]])?.first?["identifier"] as? String == "pro")
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/alice/purchases", key: Fixture.alphaKey, body: body).status == 200)
            let replay = try await client.call(.post, "/v1/apps/alpha/customers/mallory/purchases", key: Fixture.alphaKey, body: body)
            #expect(replay.status == 409)
            #expect((replay.json["error"] as? [String: Any])?["code"] as? String == "transaction_belongs_to_another_customer")
            let foreign = try await client.call(.post, "/v1/apps/beta/customers/bob/purchases", key: Fixture.betaKey, body: body)
            #expect(foreign.status == 422)
            let other = try TestCertificateAuthorityFactory.untrusted()
            let forged = "{\"signedTransaction\": \"\(try other.signTransaction(tx))\"}"
            #expect(try await client.call(.post, "/v1/apps/gamma/customers/eve/purchases", key: Fixture.gammaKey, body: forged).status == 422)
            #expect(try await client.call(.get, "/v1/apps/gamma/customers/eve", key: Fixture.gammaKey).status == 404)
            let events = try await client.call(.get, "/v1/apps/alpha/customers/alice/events", key: Fixture.alphaKey)
            #expect((events.json["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String }.contains("purchase.recorded") == true)
        }
    }

    @Test("the OpenAPI document is served and describes every route")
    func openAPI() async throws {
        try await ServerHarness.run(.sqlite) { _, client in
            let response = try await client.call(.get, "/openapi.json")
            #expect(response.status == 200)
            #expect(response.json["openapi"] as? String == "3.0.3")
            let paths = try #require(response.json["paths"] as? [String: Any])
            for path in [
                "/health", "/metrics", "/verifyReceipt", "/v1/apps/{appId}/notifications", "/v1/apps/{appId}/subscriptions/{originalTransactionId}",
                "/v1/apps/{appId}/customers/{customerId}", "/v1/apps/{appId}/customers/{customerId}/events",
                "/v1/apps/{appId}/customers/{customerId}/purchases", "/v1/apps/{appId}/customers/{customerId}/grants",
                "/v1/apps/{appId}/customers/{customerId}/signed-state", "/v1/apps/{appId}/state-signing-key",
            ] {
                #expect(paths[path] != nil, "\(path) is not described")
            }
            #expect(try await client.call(.get, "/health").json["status"] as? String == "ok")
            #expect(try await client.call(.get, "/metrics").text.contains("storekeeper_http_requests_total"))
        }
    }
}

enum TestCertificateAuthorityFactory {
    /// A CA nobody trusts: what a forger has.
    static func untrusted() throws -> TestCertificateAuthority {
        try TestCertificateAuthority.generate(
            notBefore: Date(timeIntervalSince1970: 1_577_836_800), notAfter: Date(timeIntervalSince1970: 2_208_988_800))
    }
}
