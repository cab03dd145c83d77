import Crypto
import Foundation
import HummingbirdTesting
import Logging
import NIOCore
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Testing

/// A webhook receiver in memory: records every post and answers from a script (200 when empty).
actor RecordingTransport: WebhookTransport {
    struct Post: Sendable {
        var url: String
        var headers: [String: String]
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var type: String { json["type"] as? String ?? "" }
        var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }
    private(set) var posts: [Post] = []
    private var script: [WebhookAnswer] = []
    private var scripts: [String: [WebhookAnswer]] = [:]

    func answer(_ answers: WebhookAnswer...) { script += answers }

    /// Answers for posts whose URL contains `part` (checked before the shared script).
    func answer(urlContaining part: String, _ answers: WebhookAnswer...) { scripts[part, default: []] += answers }

    nonisolated func post(url: String, headers: [(String, String)], body: Data, timeout: TimeAmount) async throws -> WebhookAnswer {
        await record(Post(url: url, headers: Dictionary(headers, uniquingKeysWith: { a, _ in a }), body: body))
    }

    private func record(_ post: Post) -> WebhookAnswer {
        posts.append(post)
        if let part = scripts.keys.sorted().first(where: { post.url.contains($0) && !(scripts[$0]?.isEmpty ?? true) }) {
            return scripts[part]!.removeFirst()
        }
        return script.isEmpty ? WebhookAnswer(status: 200) : script.removeFirst()
    }
}

@Suite("Events out: customer events and signed webhooks")
struct WebhookTests {
    static let secretKey = Data((0..<32).map { UInt8($0) })
    static let secret = "whsec_" + secretKey.base64EncodedString()

    static func configure(_ configuration: inout ServerConfiguration) {
        let index = configuration.apps.firstIndex { $0.id == "alpha" }!
        configuration.apps[index].allowPrivateNetworks = true
        configuration.apps[index].webhooks = [WebhookConfiguration(id: "backend", url: "http://127.0.0.1:9/hook", secret: secret)]
    }

    /// The server's background work with `transport` for webhooks.
    static func work(_ harness: ServerHarness, _ transport: RecordingTransport) throws -> ServerWork {
        var logger = Logger(label: "test.webhooks")
        logger.logLevel = .critical
        var dependencies = ServerDependencies(store: harness.store, clock: { harness.clock.now }, logger: logger, runsInboxWorker: false)
        dependencies.webhookTransport = transport
        return try ServerWork(configuration: harness.configuration, dependencies: dependencies)
    }

    /// Checks a Standard Webhooks signature as a receiver would.
    static func verifies(_ post: RecordingTransport.Post) -> Bool {
        guard let id = post.headers["webhook-id"], let timestamp = post.headers["webhook-timestamp"],
            let signature = post.headers["webhook-signature"]
        else { return false }
        let expected = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).".utf8) + post.body, using: SymmetricKey(data: secretKey))
        return signature.split(separator: " ").contains { $0 == "v1," + Data(expected).base64EncodedString() }
    }

    @Test("a subscription's life reaches the webhook once per transition, signed, with the clock's expiry; repeats add nothing")
    func lifecycle() async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try Self.work(harness, transport)
            let t0 = Fixture.t0
            let day = Fixture.day
            let first = try SignedData.transaction(id: "8001", original: "8001", purchase: t0, expires: t0 + 30 * day, signed: t0)
            harness.clock.set(t0 + 60)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/dana/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            // The same purchase again changes nothing.
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/dana/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            let renewed = try SignedData.transaction(
                id: "8002", original: "8001", purchase: t0 + 30 * day, expires: t0 + 60 * day, signed: t0 + 30 * day)
            let on = try SignedData.renewal(original: "8001", autoRenew: true, signed: t0 + 30 * day)
            harness.clock.set(t0 + 30 * day + 60)
            let renew = try SignedData.notification(harness.ca, type: "DID_RENEW", signed: t0 + 30 * day, transaction: renewed, renewal: on)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: renew).status == 200)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: renew).status == 200)
            try await harness.processor.drain()
            let off = try SignedData.renewal(original: "8001", autoRenew: false, signed: t0 + 40 * day)
            harness.clock.set(t0 + 40 * day + 60)
            let cancel = try SignedData.notification(
                harness.ca, type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", signed: t0 + 40 * day, transaction: renewed,
                renewal: off)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: cancel).status == 200)
            try await harness.processor.drain()
            #expect(try await work.dispatcher.drain() == 3)
            // The period ends with no renewal: the clock's job records the expiry at its instant.
            harness.clock.set(t0 + 60 * day + 1)
            try await work.runDueJobs()
            try await work.dispatcher.drain()
            let posts = await transport.posts
            #expect(
                posts.map(\.type) == ["subscription.started", "subscription.renewed", "subscription.auto_renew_disabled", "subscription.expired"],
                "\(posts.map(\.type))")
            #expect(posts.allSatisfy(Self.verifies))
            #expect(Set(posts.compactMap { $0.headers["webhook-id"] }).count == 4)
            let started = try #require(posts.first)
            #expect(started.data["customerId"] as? String == "dana" && started.data["productId"] as? String == "pro.monthly")
            #expect(started.data["originalTransactionId"] as? String == "8001" && started.data["entitlements"] as? [String] == ["pro"])
            #expect(started.data["price"] as? Double == 9.99 && started.data["currency"] as? String == "USD")
            #expect(started.data["id"] as? String == started.headers["webhook-id"])
            #expect(posts.last?.data["expirationReason"] as? String == "voluntary")
            #expect(posts.last?.json["timestamp"] as? String == "2026-03-02T00:00:00.000Z")
            // Reconciliation seeing the same facts again adds no event and sends nothing.
            try await work.runDueJobs()
            #expect(try await work.dispatcher.drain() == 0)
        }
    }

    @Test("a failing receiver gets the same event again with growing delays; a 410 disables the webhook; replay re-sends a dead letter")
    func retriesDisableReplay() async throws {
        try await ServerHarness.run(.memory, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try Self.work(harness, transport)
            await transport.answer(WebhookAnswer(status: 500), WebhookAnswer(status: 503, retryAfter: "600"), WebhookAnswer(status: 302))
            let t0 = Fixture.t0
            harness.clock.set(t0 + 60)
            let first = try SignedData.transaction(id: "8101", original: "8101", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/erin/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            #expect(try await work.dispatcher.drain() == 1)  // 500: again in about 5 s
            #expect(try await work.dispatcher.drain() == 0)
            harness.clock.set(t0 + 60 + 6)
            #expect(try await work.dispatcher.drain() == 1)  // 503 asking 600 s: longer than the 5 min step
            harness.clock.set(t0 + 60 + 6 + 400)
            #expect(try await work.dispatcher.drain() == 0)
            harness.clock.set(t0 + 60 + 6 + 661)
            #expect(try await work.dispatcher.drain() == 1)  // 302: a failure, never followed
            harness.clock.set(t0 + 60 + 6 + 661 + 1_981)
            #expect(try await work.dispatcher.drain() == 1)  // 200
            let posts = await transport.posts
            #expect(posts.count == 4 && Set(posts.compactMap { $0.headers["webhook-id"] }).count == 1)
            #expect(Set(posts.compactMap { $0.headers["webhook-timestamp"] }).count == 4)
            #expect(posts.allSatisfy(Self.verifies))
            let delivered = try await harness.store.deliveries(appId: "alpha", destination: "backend", state: .delivered, limit: 10)
            #expect(delivered.count == 1)
            let attempts = try await harness.store.attempts(deliveryId: try #require(delivered.first?.id))
            #expect(attempts.map(\.status) == [500, 503, 302, 200])

            // A 410 disables the webhook: the next event waits, undelivered.
            await transport.answer(WebhookAnswer(status: 410))
            let grant = #"{"productId": "pro.lifetime", "grantId": "g-1", "reason": "goodwill"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/erin/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            #expect(try await work.dispatcher.drain() == 1)
            #expect(try await harness.store.disabledDestinations(appId: "alpha")["backend"] != nil)
            let revoke = #"{"action": "revoke", "transactionId": "grant:g-1", "reason": "mistake"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/erin/grants", key: Fixture.alphaAdmin, body: revoke).status == 201)
            #expect(try await work.dispatcher.drain() == 0)
            // Enabled again and the dead letter replayed: both go out.
            try await harness.store.enableDestination(appId: "alpha", destination: "backend")
            #expect(try await harness.store.replayDeliveries(appId: "alpha", destination: "backend", id: nil, now: harness.clock.now) == 1)
            // The delivery getting through resolves the webhook's dead-letter problem, which is announced too.
            #expect(try await work.dispatcher.drain() == 3)
            let types = await transport.posts.suffix(3).map(\.type)
            #expect(Set(types) == ["entitlement.granted", "entitlement.revoked", "problem.resolved"])
        }
    }

    @Test("the admin API lists destinations without secrets, shows every attempt, replays dead letters, re-enables and sends a test event")
    func adminAPI() async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try Self.work(harness, transport)
            await transport.answer(WebhookAnswer(status: 410))
            let t0 = Fixture.t0
            harness.clock.set(t0 + 60)
            let first = try SignedData.transaction(id: "8201", original: "8201", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/finn/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            try await work.dispatcher.drain()
            #expect(try await client.call(.get, "/v1/apps/alpha/destinations", key: Fixture.alphaKey).status == 403)
            let list = try await client.call(.get, "/v1/apps/alpha/destinations", key: Fixture.alphaAdmin)
            #expect(list.status == 200 && !list.text.contains("whsec_"))
            let backend = try #require((list.json["destinations"] as? [[String: Any]])?.first)
            #expect(backend["id"] as? String == "backend" && (backend["disabled"] as? String)?.contains("410") == true)
            #expect((backend["deliveries"] as? [String: Int])?["dead"] == 1)
            let log = try await client.call(.get, "/v1/apps/alpha/destinations/backend/deliveries?state=dead", key: Fixture.alphaAdmin)
            let dead = try #require((log.json["deliveries"] as? [[String: Any]])?.first)
            #expect(dead["type"] as? String == "subscription.started" && (dead["log"] as? [[String: Any]])?.first?["status"] as? Int == 410)
            #expect(try await client.call(.post, "/v1/apps/alpha/destinations/backend/enable", key: Fixture.alphaAdmin).status == 200)
            let replay = try await client.call(
                .post, "/v1/apps/alpha/destinations/backend/replay", key: Fixture.alphaAdmin, body: #"{"deliveryId": \#(dead["id"] as? Int ?? 0)}"#)
            #expect(replay.status == 202 && replay.json["replayed"] as? Int == 1)
            let test = try await client.call(.post, "/v1/apps/alpha/destinations/backend/test", key: Fixture.alphaAdmin)
            #expect(test.status == 202)
            // The replay closes the ticket the dead letter opened, and says so.
            #expect(try await work.dispatcher.drain() == 3)
            let types = await transport.posts.map(\.type).sorted()
            #expect(types == ["problem.resolved", "subscription.started", "subscription.started", "test.event"], "\(types)")
            #expect(try await client.call(.get, "/v1/apps/alpha/destinations/nope/deliveries", key: Fixture.alphaAdmin).status == 404)
            #expect(try await client.call(.get, "/v1/apps/alpha/destinations/backend/deliveries?state=odd", key: Fixture.alphaAdmin).status == 400)
            // The replayed delivery closed the ticket its dead letter opened.
            let problems = try await harness.store.problems(appId: "alpha", status: nil, limit: 5)
            #expect(problems.map(\.kind) == ["charged_not_delivered"] && problems.first?.status == .resolved)
            let actions = try await harness.store.auditEntries(appId: "alpha", limit: 10).map(\.action)
            #expect(actions == ["replay_deliveries", "enable_destination"])
        }
    }

    @Test("webhooks added through the admin API: checked like the configuration's, a secret made once, used at once, changed and removed")
    func managedWebhooks() async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try Self.work(harness, transport)
            let put = try await client.call(
                .put, "/v1/apps/alpha/webhooks/extra", key: Fixture.alphaAdmin, body: #"{"url": "http://127.0.0.1:9/extra"}"#)
            #expect(put.status == 201)
            let secret = try #require(put.json["secret"] as? String)
            #expect(secret.hasPrefix("whsec_"))
            #expect(try await client.call(.put, "/v1/apps/alpha/webhooks/extra", key: Fixture.alphaKey, body: "{}").status == 403)
            #expect(
                try await client.call(.put, "/v1/apps/alpha/webhooks/backend", key: Fixture.alphaAdmin, body: #"{"url": "http://127.0.0.1:9/x"}"#)
                    .status == 409)
            let list = try await client.call(.get, "/v1/apps/alpha/destinations", key: Fixture.alphaAdmin)
            #expect(!list.text.contains(secret) && list.text.contains("\"managedBy\":\"api\""))
            let t0 = Fixture.t0
            harness.clock.set(t0 + 60)
            let first = try SignedData.transaction(id: "8701", original: "8701", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/kim/purchases", key: Fixture.alphaKey, body: body).status == 200)
            #expect(try await work.dispatcher.drain() == 2)
            let extra = try #require(await transport.posts.first { $0.url.hasSuffix("/extra") })
            let key = try #require(WebhookConfiguration.key(of: secret))
            let signature = WebhookMessage.signature(
                id: extra.headers["webhook-id"] ?? "", timestamp: Int64(extra.headers["webhook-timestamp"] ?? "") ?? 0, body: extra.body, keys: [key])
            #expect(extra.headers["webhook-signature"] == signature)
            // Narrowed to renewals, then removed: later events do not go there.
            let narrow = try await client.call(
                .put, "/v1/apps/alpha/webhooks/extra", key: Fixture.alphaAdmin,
                body: #"{"url": "http://127.0.0.1:9/extra", "secret": "\#(secret)", "events": ["subscription.renewed"]}"#)
            #expect(narrow.status == 200 && narrow.json["secret"] == nil)
            let grant = #"{"productId": "pro.lifetime", "grantId": "g-7", "reason": "goodwill"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/kim/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            #expect(try await work.dispatcher.drain() == 1)
            #expect(try await client.call(.delete, "/v1/apps/alpha/webhooks/extra", key: Fixture.alphaAdmin).status == 200)
            #expect(try await client.call(.delete, "/v1/apps/alpha/webhooks/extra", key: Fixture.alphaAdmin).status == 404)
            #expect(await transport.posts.filter { $0.url.hasSuffix("/extra") }.count == 1)
            let actions = try await harness.store.auditEntries(appId: "alpha", limit: 10).map(\.action)
            #expect(actions.contains("add_webhook") && actions.contains("change_webhook") && actions.contains("delete_webhook"))
        }
        // Without allowPrivateNetworks, no webhook may point into a private network.
        try await ServerHarness.run(.memory) { _, client in
            for url in ["http://10.0.0.1/x", "https://127.0.0.1/x", "https://169.254.169.254/latest", "ftp://example.com/x", "https://localhost/x"] {
                let refused = try await client.call(.put, "/v1/apps/alpha/webhooks/inner", key: Fixture.alphaAdmin, body: #"{"url": "\#(url)"}"#)
                #expect(refused.status == 400, "\(url)")
            }
        }
    }

    @Test("two dispatchers on one database send each event once", arguments: ServerBackend.databases)
    func replicas(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let one = try Self.work(harness, transport)
            let two = try Self.work(harness, transport)
            let t0 = Fixture.t0
            harness.clock.set(t0 + 60)
            for index in 0..<40 {
                let id = "83\(String(format: "%02d", index))"
                let purchase = try SignedData.transaction(id: id, original: id, purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
                let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(purchase))\"}"
                #expect(try await client.call(.post, "/v1/apps/alpha/customers/r\(index)/purchases", key: Fixture.alphaKey, body: body).status == 200)
            }
            async let a = one.dispatcher.drain()
            async let b = two.dispatcher.drain()
            let (sentByOne, sentByTwo) = try await (a, b)
            #expect(sentByOne + sentByTwo == 40)
            let ids = await transport.posts.compactMap { $0.headers["webhook-id"] }
            #expect(ids.count == 40 && Set(ids).count == 40)
        }
    }

    @Test("Standard Webhooks signatures: one per secret during a rotation; retry delays follow the schedule; bad webhooks are refused")
    func signaturesScheduleConfiguration() throws {
        let body = Data(#"{"type":"x"}"#.utf8)
        let other = Data((0..<24).map { UInt8(100 + $0) })
        let header = WebhookMessage.signature(id: "evt_1", timestamp: 1_700_000_000, body: body, keys: [Self.secretKey, other])
        #expect(header.split(separator: " ").count == 2 && header.hasPrefix("v1,"))
        let expected = HMAC<SHA256>.authenticationCode(for: Data("evt_1.1700000000.".utf8) + body, using: SymmetricKey(data: Self.secretKey))
        #expect(header.split(separator: " ").first.map(String.init) == "v1," + Data(expected).base64EncodedString())
        for (json, message) in [
            (#"{"id": "h", "url": "https://10.0.0.5/x", "secret": "\#(Self.secret)"}"#, "private address"),
            (#"{"id": "h", "url": "http://example.com/x", "secret": "\#(Self.secret)"}"#, "https"),
            (#"{"id": "h", "url": "https://localhost/x", "secret": "\#(Self.secret)"}"#, "private address"),
            (#"{"id": "h", "url": "https://example.com/x", "secret": "hunter2"}"#, "whsec_"),
            (#"{"id": "h", "url": "https://[::1]/x", "secret": "\#(Self.secret)"}"#, "private address"),
            (#"{"id": "h", "url": "https://169.254.169.254/x", "secret": "\#(Self.secret)"}"#, "private address"),
        ] {
            let config = #"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox"], "webhooks": [\#(json)]}]}"#
            #expect(throws: (any Error).self, "\(message)") {
                try ServerConfiguration.load(file: nil, environment: ["STOREKEEPER_CONFIG_JSON": config])
            }
        }
    }
}
