import Crypto
import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore
import Testing

/// App account tokens are issued by the server to one authenticated customer, random and never
/// derivable; only an issued token links Apple's transactions to a customer, and only to the
/// customer it was issued to.
@Suite("Security: app account tokens")
struct AppAccountTokenTests {
    /// The customer's token, as the operator's backend (`key`) or the customer's app asks for it.
    static func issue(
        _ client: any TestClientProtocol, _ customer: String, app: String = "alpha", key: String = Fixture.alphaKey
    ) async throws
        -> String
    {
        let response = try await client.call(.post, "/v1/apps/\(app)/customers/\(customer)/appAccountToken", key: key)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["customerId"] as? String == customer)
        return try #require(response.json["appAccountToken"] as? String)
    }

    /// The token an earlier version derived from the ids: what anyone knowing a customer id knew.
    static func derived(appId: String, customerId: String) -> String {
        var bytes = Array(SHA256.hash(data: Data("storekeeper app account token\n\(appId)\n\(customerId)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// `customer` posts a signed transaction of a new monthly chain carrying `token`.
    static func purchase(
        _ harness: ServerHarness, _ client: any TestClientProtocol, _ customer: String, chain: String, token: String?, app: String = "alpha",
        key: String = Fixture.alphaKey, bundle: String = Fixture.bundle
    ) async throws -> (status: Int, json: [String: Any], text: String) {
        let t0 = Fixture.t0
        let tx = try SignedData.transaction(
            id: chain, original: chain, purchase: t0 - 3600, expires: t0 + 30 * Fixture.day, signed: t0 - 60, token: token, bundle: bundle)
        let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(tx))\"}"
        return try await client.call(.post, "/v1/apps/\(app)/customers/\(customer)/purchases", key: key, body: body)
    }

    /// Apple's `SUBSCRIBED` notification for a new chain carrying `token`, processed.
    static func notify(_ harness: ServerHarness, _ client: any TestClientProtocol, chain: String, token: String?) async throws {
        let t0 = Fixture.t0
        let body = try SignedData.notification(
            harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: t0 - 60,
            transaction: try SignedData.transaction(
                id: chain, original: chain, purchase: t0 - 3600, expires: t0 + 30 * Fixture.day, signed: t0 - 60, token: token),
            renewal: try SignedData.renewal(original: chain, autoRenew: true, signed: t0 - 60))
        #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
        try await harness.processor.drain()
    }

    static func owner(_ harness: ServerHarness, chain: String, app: String = "alpha") async throws -> String? {
        try await harness.store.customer(appId: app, alias: .originalTransactionId(chain))
    }

    @Test(
        "a token is a random v4 UUID issued to one customer: the same on every ask, asked by the app key or the customer's own token only",
        arguments: ServerBackend.available)
    func issuance(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { _, client in
            let alice = try await Self.issue(client, "alice")
            #expect(UUID(uuidString: alice) != nil && alice == alice.lowercased())
            #expect(alice.dropFirst(14).first == "4")
            #expect(alice != Self.derived(appId: "alpha", customerId: "alice"))
            #expect(try await Self.issue(client, "alice") == alice)
            let token = try await KeyModelTests.mint(client, customer: "alice")
            #expect(try await Self.issue(client, "alice", key: token) == alice)
            #expect(try await Self.issue(client, "alice", key: Fixture.alphaAdmin) == alice)
            let bob = try await Self.issue(client, "bob")
            #expect(bob != alice)
            // Alice's app cannot ask for bob's token, nor can another app's key or no key.
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/bob/appAccountToken", key: token).status == 403)
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/alice/appAccountToken", key: Fixture.betaKey).status == 404)
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/alice/appAccountToken").status == 401)
            // Each app issues its own.
            #expect(try await Self.issue(client, "alice", app: "gamma", key: Fixture.gammaKey) != alice)
        }
    }

    @Test(
        "squatting by purchase fails: mallory's purchase with the victim's token is refused, the victim's own is accepted, and Apple's notification for the victim's chain links to the victim",
        arguments: ServerBackend.available)
    func squattingByPurchase(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let victim = try await Self.issue(client, "victim")
            // With the derivable token, mallory's purchase is hers, but the token stays nobody's.
            let guessed = Self.derived(appId: "alpha", customerId: "victim")
            #expect(try await Self.purchase(harness, client, "mallory", chain: "7100001", token: guessed).status == 200)
            #expect(try await harness.store.customer(appId: "alpha", alias: .appAccountToken(guessed)) == nil)
            // With the victim's issued token (leaked), her purchase is refused.
            let squat = try await Self.purchase(harness, client, "mallory", chain: "7100002", token: victim)
            #expect(squat.status == 409)
            #expect(squat.json.errorCode == "transaction_belongs_to_another_customer")
            #expect(try await harness.store.customer(appId: "alpha", alias: .appAccountToken(victim)) == "victim")

            // Apple reports the victim's paid chain before the app posts it: it is the victim's.
            try await Self.notify(harness, client, chain: "7200001", token: victim)
            #expect(try await Self.owner(harness, chain: "7200001") == "victim")
            // A chain carrying the guessed token links to nobody, mallory included.
            try await Self.notify(harness, client, chain: "7200002", token: guessed)
            #expect(try await Self.owner(harness, chain: "7200002") == nil)
            // The victim's own purchase goes through.
            let own = try await Self.purchase(harness, client, "victim", chain: "7200001", token: victim)
            #expect(own.status == 200, "\(own.text)")
            #expect((own.json["entitlements"] as? [[String: Any]])?.first?["identifier"] as? String == "pro")
        }
    }

    @Test(
        "squatting by offer signature fails: a past subscriber's offers/sign never binds the victim's token, and the victim's purchases stay the victim's",
        arguments: ServerBackend.available)
    func squattingByOfferSignature(backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            let start = Fixture.t0.addingTimeInterval(-35 * Fixture.day)
            let lapsed = try SignedData.transaction(
                id: "8100001", original: "8100001", purchase: start, expires: start + 30 * Fixture.day, signed: start)
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(lapsed))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/mallory/purchases", key: Fixture.alphaKey, body: body).status == 200)
            let mallory = try await KeyModelTests.mint(client, customer: "mallory")
            let victim = try await Self.issue(client, "victim")
            for token in [victim, Self.derived(appId: "alpha", customerId: "victim"), UUID().uuidString] {
                let offer = #"{"customerId":"mallory","productId":"pro.monthly","offerId":"o1","appAccountToken":"\#(token)"}"#
                for key in [mallory, Fixture.alphaKey] {
                    let refused = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: key, body: offer)
                    #expect(refused.status == 409, "\(refused.text)")
                    #expect(refused.json.errorCode == "app_account_token_not_issued")
                }
                #expect(try await harness.store.customer(appId: "alpha", alias: .appAccountToken(token)) != "mallory")
            }
            // Mallory's own signature carries her own token.
            let own = try await client.call(
                .post, "/v1/apps/alpha/offers/sign", key: mallory, body: #"{"customerId":"mallory","productId":"pro.monthly","offerId":"o1"}"#)
            #expect(own.status == 200, "\(own.text)")
            #expect(own.json["appAccountToken"] as? String == (try await Self.issue(client, "mallory")))
            // The victim's purchase and Apple's notification of it are the victim's.
            try await Self.notify(harness, client, chain: "7300001", token: victim)
            #expect(try await Self.owner(harness, chain: "7300001") == "victim")
            #expect(try await Self.purchase(harness, client, "victim", chain: "7300001", token: victim).status == 200)
        }
    }

    @Test(
        "across a project: a purchase in beta carrying an alpha customer's token gets nothing of that customer's, and the project route shows none of it",
        arguments: ServerBackend.available)
    func acrossProject(backend: ServerBackend) async throws {
        let configure: (inout ServerConfiguration) throws -> Void = { $0.projects = [ProjectConfiguration(id: "studio", apps: ["alpha", "beta"])] }
        try await ServerHarness.run(backend, configure: configure) {
            harness, client in
            let victim = try await Self.issue(client, "victim")
            #expect(try await Self.purchase(harness, client, "victim", chain: "7400001", token: victim).status == 200)
            let stolen = try await Self.purchase(
                harness, client, "mallory", chain: "7400002", token: victim, app: "beta", key: Fixture.betaKey, bundle: "com.example.beta")
            #expect(stolen.status == 200, "\(stolen.text)")
            #expect(stolen.json["sharedEntitlements"] == nil)
            let state = try await client.call(.get, "/v1/apps/beta/customers/mallory", key: Fixture.betaKey)
            #expect(state.json["sharedEntitlements"] == nil, "\(state.text)")
            let project = try await client.call(.get, "/v1/projects/studio/customers/mallory", key: Fixture.betaKey)
            #expect(project.status == 200, "\(project.text)")
            let parts = try #require(project.json["apps"] as? [[String: Any]])
            #expect(parts.compactMap { $0["customerId"] as? String } == ["mallory"])
            #expect(parts.compactMap { $0["appId"] as? String } == ["beta"])
            // The victim still reads its own subscription through the project.
            let own = try await client.call(.get, "/v1/projects/studio/customers/victim", key: Fixture.alphaKey)
            #expect((own.json["apps"] as? [[String: Any]])?.compactMap { $0["customerId"] as? String } == ["victim"])
        }
    }

    @Test(
        "a token nobody was issued links nothing and is recorded as such; the chain becomes the customer's who posts it",
        arguments: ServerBackend.available)
    func unknownToken(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let unknown = "0a0b0c0d-1111-4222-8333-444455556666"
            // A purchase posted with it links the chain, never the token.
            #expect(try await Self.purchase(harness, client, "mallory", chain: "7500001", token: unknown).status == 200)
            try await Self.notify(harness, client, chain: "7500002", token: unknown)
            #expect(try await Self.owner(harness, chain: "7500002") == nil)
            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            let recorded = try #require(audit.first { $0.action == "unknown_app_account_token" })
            #expect(recorded.details["appAccountToken"] == unknown && recorded.details["originalTransactionIds"] == "7500002")
            #expect(recorded.actor == "apple" && recorded.customerId == nil)
            let posted = try await Self.purchase(harness, client, "carol", chain: "7500002", token: unknown)
            #expect(posted.status == 200, "\(posted.text)")
            #expect(try await Self.owner(harness, chain: "7500002") == "carol")
        }
    }

    @Test(
        "the admin rotates a customer's token: the old one links nothing from then on, the new one links; audited; nobody else may rotate",
        arguments: ServerBackend.available)
    func rotation(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let old = try await Self.issue(client, "victim")
            let path = "/v1/apps/alpha/customers/victim/appAccountToken/rotate"
            let customerToken = try await KeyModelTests.mint(client, customer: "victim")
            for key in [Fixture.alphaKey, customerToken] {
                #expect(try await client.call(.post, path, key: key, body: #"{"reason":"leaked"}"#).status == 403)
            }
            #expect(try await client.call(.post, path, key: Fixture.alphaAdmin, body: "{}").status == 400)
            let rotated = try await client.call(.post, path, key: Fixture.alphaAdmin, body: #"{"reason":"leaked"}"#)
            #expect(rotated.status == 200, "\(rotated.text)")
            let new = try #require(rotated.json["appAccountToken"] as? String)
            #expect(new != old && rotated.json["revoked"] as? [String] == [old])
            #expect(try await Self.issue(client, "victim") == new)
            try await Self.notify(harness, client, chain: "7600001", token: old)
            #expect(try await Self.owner(harness, chain: "7600001") == nil)
            try await Self.notify(harness, client, chain: "7600002", token: new)
            #expect(try await Self.owner(harness, chain: "7600002") == "victim")
            let audit = try await harness.store.auditEntries(appId: "alpha", customerId: "victim", limit: 10)
            #expect(audit.contains { $0.action == "rotate_app_account_token" && $0.reason == "leaked" && $0.details["revoked"] == old })
        }
    }
}
