import Foundation
import HummingbirdTesting
import Logging
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperServer
import StorekeeperStore
import Testing

@Suite("Events out: Slack, Telegram, Amplitude and Mixpanel in their own formats")
struct IntegrationTests {
    static func configure(_ configuration: inout ServerConfiguration) {
        let index = configuration.apps.firstIndex { $0.id == "alpha" }!
        configuration.apps[index].allowPrivateNetworks = true
        var slack = IntegrationConfiguration(id: "ops-slack", type: .slack)
        slack.url = "https://hooks.slack.com/slack/T000/B000/XXX"
        slack.baseURL = "http://127.0.0.1:9/"
        slack.templates = ["subscription.started": "Welcome {customerId} <{productId}>"]
        var telegram = IntegrationConfiguration(id: "ops-telegram", type: .telegram)
        telegram.botToken = "123:abc"
        telegram.chatId = "-100200"
        telegram.baseURL = "http://127.0.0.1:9/telegram"
        var amplitude = IntegrationConfiguration(id: "amplitude", type: .amplitude)
        amplitude.apiKey = "amp-key"
        amplitude.baseURL = "http://127.0.0.1:9/amplitude"
        var mixpanel = IntegrationConfiguration(id: "mixpanel", type: .mixpanel)
        mixpanel.projectId = "4242"
        mixpanel.serviceAccountUsername = "sa.user"
        mixpanel.serviceAccountSecret = "sa-secret"
        mixpanel.baseURL = "http://127.0.0.1:9/mixpanel"
        mixpanel.events = ["subscription.started", "subscription.renewed"]
        configuration.apps[index].integrations = [slack, telegram, amplitude, mixpanel]
    }

    @Test("each vendor gets its own request shape; Telegram's retry_after and Mixpanel's strict refusals are honoured")
    func vendorFormats() async throws {
        try await ServerHarness.run(.memory, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try WebhookTests.work(harness, transport)
            let t0 = Fixture.t0
            let day = Fixture.day
            harness.clock.set(t0 + 60)
            let first = try SignedData.transaction(id: "9001", original: "9001", purchase: t0, expires: t0 + 30 * day, signed: t0)
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/zoe%3C%26%3E/purchases", key: Fixture.alphaKey, body: body).status == 200)
            let renewed = try SignedData.transaction(
                id: "9002", original: "9001", purchase: t0 + 30 * day, expires: t0 + 60 * day, signed: t0 + 30 * day)
            let renewal = try SignedData.renewal(original: "9001", autoRenew: true, signed: t0 + 30 * day)
            harness.clock.set(t0 + 30 * day + 60)
            let note = try SignedData.notification(harness.ca, type: "DID_RENEW", signed: t0 + 30 * day, transaction: renewed, renewal: renewal)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: note).status == 200)
            try await harness.processor.drain()
            // Telegram is busy once; Mixpanel refuses the first record of its batch.
            await transport.answer(
                urlContaining: "/telegram", WebhookAnswer(status: 200),
                WebhookAnswer(status: 429, body: Data(#"{"ok":false,"error_code":429,"parameters":{"retry_after":7}}"#.utf8)))
            try await work.dispatcher.drain()
            let posts = await transport.posts
            let byPath = Dictionary(grouping: posts) { URL(string: $0.url)?.path ?? "" }

            let slack = try #require(byPath["/slack/T000/B000/XXX"])
            #expect(slack.count == 2)
            // The webhook's path went to the local baseURL, never to Slack's host.
            #expect(slack.allSatisfy { $0.url.hasPrefix("http://127.0.0.1:9/slack/") })
            let welcome = try #require(slack.first { ($0.json["text"] as? String)?.hasPrefix("Welcome") == true })
            #expect(welcome.json["text"] as? String == "Welcome zoe&lt;&amp;&gt; &lt;pro.monthly&gt;")
            #expect((welcome.json["blocks"] as? [[String: Any]])?.first?["type"] as? String == "section")

            let telegram = try #require(byPath["/telegram/bot123:abc/sendMessage"])
            #expect(telegram.allSatisfy { $0.json["chat_id"] as? String == "-100200" && $0.json["parse_mode"] as? String == "HTML" })
            #expect(telegram.contains { ($0.json["text"] as? String)?.contains("zoe&lt;&amp;&gt;") == true })

            let amplitude = try #require(byPath["/amplitude/2/httpapi"])
            #expect(amplitude.count == 1)  // both events in one batch
            let events = try #require(amplitude.first?.json["events"] as? [[String: Any]])
            #expect(amplitude.first?.json["api_key"] as? String == "amp-key" && events.count == 2)
            #expect((amplitude.first?.json["options"] as? [String: Any])?["min_id_length"] as? Int == 1)
            let started = try #require(events.first { $0["event_type"] as? String == "subscription.started" })
            #expect(started["user_id"] as? String == "zoe<&>" && (started["insert_id"] as? String)?.hasPrefix("evt_") == true)
            #expect(started["revenue"] as? Double == 9.99 && started["quantity"] as? Int == 1 && started["productId"] as? String == "pro.monthly")
            #expect(started["time"] as? Int64 == Int64(t0.timeIntervalSince1970 * 1000))

            let mixpanel = try #require(byPath["/mixpanel/import"])
            #expect(mixpanel.first?.url.hasSuffix("/mixpanel/import?strict=1&project_id=4242") == true)
            #expect(mixpanel.first?.headers["authorization"] == "Basic " + Data("sa.user:sa-secret".utf8).base64EncodedString())
            let records = try #require((try? JSONSerialization.jsonObject(with: mixpanel.first?.body ?? Data())) as? [[String: Any]])
            #expect(records.count == 2 && records.allSatisfy { (($0["properties"] as? [String: Any])?["$insert_id"] as? String)?.count == 36 })
            #expect(records.first.flatMap { ($0["properties"] as? [String: Any])?["distinct_id"] as? String } == "zoe<&>")

            // Telegram's 429 waits its retry_after (7 s), longer than the first step's 5 s.
            let counts = try await harness.store.deliveryCounts(appId: "alpha")
            #expect(counts["ops-telegram"]?[.pending] == 1)
            harness.clock.set(harness.clock.now + 6)
            #expect(try await work.dispatcher.drain() == 0)
            harness.clock.set(harness.clock.now + 2)
            #expect(try await work.dispatcher.drain() == 1)
        }
    }

    @Test("Mixpanel's strict mode: the records it names are dead, the rest delivered")
    func mixpanelStrict() async throws {
        let configure: (inout ServerConfiguration) throws -> Void = { configuration in
            Self.configure(&configuration)
            let index = configuration.apps.firstIndex { $0.id == "alpha" }!
            configuration.apps[index].integrations = configuration.apps[index].integrations.filter { $0.type == .mixpanel }
        }
        try await ServerHarness.run(
            .memory,
            configure: configure
        ) { harness, client in
            let transport = RecordingTransport()
            let work = try WebhookTests.work(harness, transport)
            let t0 = Fixture.t0
            harness.clock.set(t0 + 30 * Fixture.day + 60)
            for (customer, id) in [("a1", "9101"), ("a2", "9102")] {
                let purchase = try SignedData.transaction(id: id, original: id, purchase: t0, expires: t0 + 60 * Fixture.day, signed: t0)
                let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(purchase))\"}"
                #expect(
                    try await client.call(.post, "/v1/apps/alpha/customers/\(customer)/purchases", key: Fixture.alphaKey, body: body).status == 200)
            }
            await transport.answer(
                urlContaining: "/mixpanel",
                WebhookAnswer(
                    status: 400,
                    body: Data(
                        #"{"code":400,"num_records_imported":1,"failed_records":[{"index":0,"field":"properties.time","message":"too old"}]}"#.utf8)))
            #expect(try await work.dispatcher.drain() == 2)
            let counts = try await harness.store.deliveryCounts(appId: "alpha")["mixpanel"] ?? [:]
            #expect(counts[.dead] == 1 && counts[.delivered] == 1)
            let dead = try await harness.store.deliveries(appId: "alpha", destination: "mixpanel", state: .dead, limit: 5)
            #expect(dead.first?.lastError?.contains("too old") == true)
        }
    }
}
