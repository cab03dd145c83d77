import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore
import Testing

/// How the dispatcher treats each destination, against vendors on a loopback port: the
/// environments it takes, what analytics projects get, Amplitude's refusals, and 429 pauses.
@Suite("Events out: each destination's environments, analytics' events, Amplitude's refusals, 429 pauses")
struct DestinationRulesTests {
    /// App alpha sending to `destination` only: `webhooks` and `integrations` there.
    static func configure(
        _ configuration: inout ServerConfiguration, webhooks: [WebhookConfiguration] = [], integrations: [IntegrationConfiguration]
    ) {
        let index = configuration.apps.firstIndex { $0.id == "alpha" }!
        configuration.apps[index].allowPrivateNetworks = true
        configuration.apps[index].webhooks = webhooks
        configuration.apps[index].integrations = integrations
    }

    static func amplitude(_ id: String, _ destination: LoopbackDestination, events: [String]? = nil) -> IntegrationConfiguration {
        var amplitude = IntegrationConfiguration(id: id, type: .amplitude)
        amplitude.apiKey = "amp-key"
        amplitude.baseURL = destination.base + "/\(id)"
        amplitude.events = events
        return amplitude
    }

    @Test("a problem alert goes only where its environment is taken, with app, environment and customer; analytics get customer events")
    func problemAlertsRespectEnvironments() async throws {
        let destination = try await LoopbackDestination()
        let configure: (inout ServerConfiguration) throws -> Void = { configuration in
            Self.configure(
                &configuration,
                webhooks: [
                    WebhookConfiguration(
                        id: "production", url: destination.base + "/production", secret: WebhookTests.secret, environments: ["Production"]),
                    WebhookConfiguration(id: "every", url: destination.base + "/every", secret: WebhookTests.secret),
                ],
                integrations: [Self.amplitude("amplitude", destination), Self.amplitude("alerts", destination, events: ["problem.opened"])])
        }
        try await ServerHarness.run(
            .sqlite,
            configure: configure
        ) { harness, client in
            try await destination.withDispatcher(harness) { work in
                // Sandbox traffic: a purchase, then the app reports it could not deliver it.
                try await ProblemReportTests.purchase("alice", "8801", harness, client)
                let report = try await ProblemReportTests.report("alice", transaction: "8801", key: Fixture.alphaKey, client)
                #expect(report.status == 202 && report.json["opened"] as? String == "true", "\(report.text)")
                try await work.dispatcher.drain()
            }
            #expect(destination.requests(pathContaining: "/production").isEmpty)
            let every = destination.requests(pathContaining: "/every")
            #expect(every.map(\.type) == ["subscription.started", "problem.opened"])
            let alert = try #require(every.last?.data)
            #expect(alert["appId"] as? String == "alpha" && alert["environment"] as? String == "Sandbox" && alert["customerId"] as? String == "alice")
            let analytics = destination.requests(pathContaining: "/amplitude/").flatMap(\.events)
            #expect(analytics.map { $0["event_type"] as? String } == ["subscription.started"])
            // An analytics project that names problem events gets them, with a user to file them under.
            let alerts = destination.requests(pathContaining: "/alerts/").flatMap(\.events)
            #expect(alerts.map { $0["event_type"] as? String } == ["problem.opened"] && alerts.first?["user_id"] as? String == "alice")
        }
        await destination.stop()
    }

    @Test("Amplitude's 400 naming invalid events: those are dead, the rest go again and are delivered")
    func amplitudeRefusals() async throws {
        let destination = try await LoopbackDestination()
        let configure: (inout ServerConfiguration) throws -> Void = { Self.configure(&$0, integrations: [Self.amplitude("amplitude", destination)]) }
        try await ServerHarness.run(
            .memory, configure: configure
        ) { harness, client in
            for (customer, id) in [("a1", "8901"), ("a2", "8902"), ("a3", "8903")] {
                try await ProblemReportTests.purchase(customer, id, harness, client)
            }
            destination.answer(
                pathContaining: "/2/httpapi",
                .init(
                    status: 400,
                    body:
                        #"{"code":400,"error":"Invalid field values on some events","events_with_invalid_fields":{"time":[1]},"events_with_missing_fields":{"event_type":[1]}}"#
                ))
            try await destination.withDispatcher(harness) { work in
                let handled = try await work.dispatcher.drain()
                #expect(handled == 3)
            }
            let posts = destination.requests(pathContaining: "/2/httpapi")
            try #require(posts.count == 2)
            let refused = try #require(posts[0].events.count == 3 ? posts[0].events[1]["insert_id"] as? String : nil)
            #expect(posts[1].events.count == 2 && !posts[1].events.contains { $0["insert_id"] as? String == refused })
            let counts = try await harness.store.deliveryCounts(appId: "alpha")["amplitude"] ?? [:]
            #expect(counts[.dead] == 1 && counts[.delivered] == 2)
            let dead = try #require(try await harness.store.deliveries(appId: "alpha", destination: "amplitude", state: .dead, limit: 5).first)
            #expect(dead.lastError == "refused by Amplitude: invalid time, missing event_type")
        }
        await destination.stop()
    }

    @Test("a 429 from Slack (Retry-After) or Telegram (retry_after) pauses the whole destination for the time asked")
    func rateLimitPausesDestination() async throws {
        let destination = try await LoopbackDestination()
        var slack = IntegrationConfiguration(id: "slack", type: .slack)
        slack.url = "https://hooks.slack.com/services/T000/B000/XXX"
        slack.baseURL = destination.base
        var telegram = IntegrationConfiguration(id: "telegram", type: .telegram)
        telegram.botToken = "123:abc"
        telegram.chatId = "-100200"
        telegram.baseURL = destination.base + "/telegram"
        let configure: (inout ServerConfiguration) throws -> Void = { Self.configure(&$0, integrations: [slack, telegram]) }
        try await ServerHarness.run(.memory, configure: configure) { harness, client in
            for (customer, id) in [("b1", "9201"), ("b2", "9202"), ("b3", "9203")] {
                try await ProblemReportTests.purchase(customer, id, harness, client)
            }
            destination.answer(pathContaining: "/services/", .init(status: 429, headers: ["Retry-After": "30"], body: "rate_limited"))
            destination.answer(
                pathContaining: "/telegram/", .init(status: 429, body: #"{"ok":false,"error_code":429,"parameters":{"retry_after":30}}"#))
            let start = harness.clock.now
            try await destination.withDispatcher(harness) { work in
                try await work.dispatcher.drain()
                // One message each, refused; nothing more while the pause lasts.
                #expect(destination.requests(pathContaining: "/services/").count == 1)
                #expect(destination.requests(pathContaining: "/telegram/").count == 1)
                harness.clock.set(start + 29)
                let handled = try await work.dispatcher.drain()
                #expect(handled == 0)
                harness.clock.set(start + 31)
                try await work.dispatcher.drain()
            }
            for part in ["/services/", "/telegram/"] {
                let requests = destination.requests(pathContaining: part)
                #expect(requests.count == 4, "\(part)")
                let first = try #require(requests.first?.at)
                #expect(
                    requests.dropFirst().allSatisfy { $0.at.timeIntervalSince(first) >= 30 },
                    "\(part): \(requests.map { $0.at.timeIntervalSince(first) })")
            }
            // Held back, the other messages lost no attempt to the pause.
            for id in ["slack", "telegram"] {
                let deliveries = try await harness.store.deliveries(appId: "alpha", destination: id, state: .delivered, limit: 10)
                #expect(deliveries.map(\.attempts).sorted() == [1, 1, 2], "\(id)")
            }
        }
        await destination.stop()
    }
}
