import Foundation
import HummingbirdTesting
import Logging
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Testing

@Suite("Problems: the seeds' error groups, opened once per cause, alerted, resolved")
struct ProblemTests {
    static func configure(_ configuration: inout ServerConfiguration) {
        WebhookTests.configure(&configuration)
        let index = configuration.apps.firstIndex { $0.id == "alpha" }!
        var slack = IntegrationConfiguration(id: "alerts", type: .slack)
        slack.url = "http://127.0.0.1:9/alerts"
        slack.events = ["problem.opened", "problem.resolved"]
        configuration.apps[index].integrations = [slack]
    }

    /// `priced`: the purchase comes as a signed transaction (with its price) or in a receipt,
    /// which has none: a payment of unknown amount is a payment all the same.
    @Test(
        "a paying customer's event that never reaches the backend becomes a ticket with the money and an alert; resolving alerts too",
        arguments: [true, false])
    func chargedNotDelivered(priced: Bool) async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try WebhookTests.work(harness, transport)
            let t0 = Fixture.t0
            var now = t0 + 60
            harness.clock.set(now)
            let first = try SignedData.transaction(id: "8501", original: "8501", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let receipt = try TestReceipts.receipt(purchases: [("pro.monthly", "8501", "8501", t0, t0 + 30 * Fixture.day)], created: t0 + 30)
            let purchase =
                priced ? "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}" : "{\"receipt\": \"\(receipt)\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/gail/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            // The backend fails every attempt: ten, over about three days, then the bound is reached.
            for _ in 0..<10 { await transport.answer(urlContaining: "/hook", WebhookAnswer(status: 500)) }
            for delay in [0.0] + RetrySchedule.delays.map({ $0 * 1.2 }) {
                now += delay
                harness.clock.set(now)
                try await work.dispatcher.drain()
            }
            let hooks = await transport.posts.filter { $0.url.hasSuffix("/hook") }
            #expect(hooks.count == 10 && Set(hooks.compactMap { $0.headers["webhook-id"] }).count == 1)
            let problems = try await harness.store.problems(appId: "alpha", status: .open, limit: 10)
            let ticket = try #require(problems.first)
            #expect(problems.count == 1 && ticket.kind == "charged_not_delivered" && ticket.customerId == "gail")
            #expect(ticket.amount == (priced ? Decimal(string: "9.99") : nil) && ticket.currency == (priced ? "USD" : nil))
            #expect(ticket.evidence["lastError"] == "HTTP 500")
            // The alert went to Slack (never to the failing backend).
            let alerts = await transport.posts.filter { $0.url.hasSuffix("/alerts") }
            #expect(alerts.count == 1 && (alerts.first?.json["text"] as? String)?.contains("gail paid for pro.monthly") == true)
            let api = try await client.call(.get, "/v1/apps/alpha/problems?status=open", key: Fixture.alphaAdmin)
            #expect((api.json["problems"] as? [[String: Any]])?.first?["kind"] as? String == "charged_not_delivered")
            let resolved = try await client.call(
                .post, "/v1/apps/alpha/problems/\(ticket.id ?? 0)/resolve", key: Fixture.alphaAdmin, body: #"{"reason": "delivered by hand"}"#)
            #expect(resolved.status == 200 && resolved.json["status"] as? String == "resolved", "\(resolved.text)")
            #expect(
                try await client.call(.post, "/v1/apps/alpha/problems/\(ticket.id ?? 0)/resolve", key: Fixture.alphaAdmin, body: #"{"reason": "x"}"#)
                    .status == 404)
            try await work.dispatcher.drain()
            let later = await transport.posts.filter { $0.url.hasSuffix("/alerts") }
            #expect(later.count == 2 && (later.last?.json["text"] as? String)?.hasPrefix("Resolved") == true)
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 5).first?.action == "resolve_problem")
        }
    }

    @Test("operational causes open once and clear by themselves: dead letters to a destination, a job kind failing for good")
    func operational() async throws {
        try await ServerHarness.run(.memory, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try WebhookTests.work(harness, transport)
            await transport.answer(urlContaining: "/hook", WebhookAnswer(status: 410))
            let t0 = Fixture.t0
            harness.clock.set(t0 + 60)
            let grant = #"{"productId": "pro.lifetime", "grantId": "g-9", "reason": "goodwill"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/hana/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            try await work.dispatcher.drain()
            let open = try await harness.store.problems(appId: "alpha", status: .open, limit: 10)
            #expect(open.map(\.kind) == ["dead_letters"] && open.first?.causeKey == "dead_letters:backend")
            // Enabled and replayed, the delivery gets through: the problem resolves itself.
            try await harness.store.enableDestination(appId: "alpha", destination: "backend")
            _ = try await harness.store.replayDeliveries(appId: "alpha", destination: "backend", id: nil, now: harness.clock.now)
            try await work.dispatcher.drain()
            let after = try await harness.store.problems(appId: "alpha", status: nil, limit: 10)
            #expect(after.first?.status == .resolved && after.first?.resolvedBy == "automatic")
        }
    }

    @Test("the app reports purchases gone wrong: before payment only noted, a charge it could not deliver opens a ticket")
    func appReported() async throws {
        try await ServerHarness.run(.memory, configure: Self.configure) { harness, client in
            try await ProblemReportTests.purchase("ivy", "77", harness, client)
            let noted = try await client.call(
                .post, "/v1/apps/alpha/customers/ivy/problems", key: Fixture.alphaKey,
                body: #"{"kind": "not_charged", "productId": "pro.monthly", "reason": "payment sheet cancelled"}"#)
            #expect(noted.status == 202 && noted.json["status"] as? String == "noted")
            let charged = try await client.call(
                .post, "/v1/apps/alpha/customers/ivy/problems", key: Fixture.alphaKey,
                body:
                    #"{"kind": "charged_not_delivered", "transactionId": "77", "reason": "download failed 5 times", "evidence": {"lastError": "timeout"}}"#
            )
            #expect(charged.status == 202 && charged.json["opened"] as? String == "true")
            let again = try await client.call(
                .post, "/v1/apps/alpha/customers/ivy/problems", key: Fixture.alphaKey,
                body: #"{"kind": "charged_not_delivered", "transactionId": "77", "reason": "still failing"}"#)
            #expect(again.json["opened"] as? String == "false")
            let open = try await harness.store.problems(appId: "alpha", status: .open, limit: 10)
            #expect(open.count == 1 && open.first?.occurrences == 2 && open.first?.evidence["lastError"] == "timeout")
            #expect(try await harness.store.problems(appId: "alpha", status: .noted, limit: 10).count == 1)
            for body in [#"{"kind": "weird", "reason": "x"}"#, #"{"kind": "not_charged", "reason": "  "}"#] {
                #expect(try await client.call(.post, "/v1/apps/alpha/customers/ivy/problems", key: Fixture.alphaKey, body: body).status == 400)
            }
            #expect(try await client.call(.get, "/v1/apps/alpha/problems", key: Fixture.alphaKey).status == 403)
            #expect(try await client.call(.get, "/v1/apps/alpha/problems?status=bad", key: Fixture.alphaAdmin).status == 400)
        }
    }
}

@Suite("Problems: the intake's health")
struct IntakeHealthTests {
    @Test("a spike of rejected notifications opens a problem once; it resolves when the hour is clean; silence while live opens another")
    func spikeAndSilence() async throws {
        try await ServerHarness.run(.sqlite) { harness, client in
            var logger = Logger(label: "test.health")
            logger.logLevel = .critical
            let work = try ServerWork(
                configuration: harness.configuration,
                dependencies: ServerDependencies(store: harness.store, clock: { harness.clock.now }, logger: logger, runsInboxWorker: false))
            let t0 = Fixture.t0
            harness.clock.set(t0 + 600)
            // A purchase makes the app live; then 25 notifications signed by a stranger arrive.
            let first = try SignedData.transaction(id: "8601", original: "8601", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/jo/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            // 25 genuine-looking notifications for a product the app does not sell: stored, then rejected.
            for index in 0..<25 {
                let odd = try SignedData.transaction(
                    id: "9\(index)", original: "9\(index)", product: "odd.product", purchase: t0, expires: t0 + Fixture.day, signed: t0)
                let body = try SignedData.notification(harness.ca, type: "DID_RENEW", signed: t0, transaction: odd, renewal: nil)
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            }
            try await harness.processor.drain()
            try await work.runScheduler()
            try await work.runScheduler()
            let open = try await harness.store.problems(appId: "alpha", status: .open, limit: 10)
            #expect(open.map(\.kind) == ["rejected_spike"] && open.first?.occurrences == 1, "\(open.map(\.kind))")
            // Two hours later the last hour is clean: resolved. Two days of silence while live: a problem.
            harness.clock.set(t0 + 600 + 2 * 3600)
            try await work.runScheduler()
            #expect(try await harness.store.problems(appId: "alpha", status: .open, limit: 10).isEmpty)
            harness.clock.set(t0 + 600 + 50 * 3600)
            try await work.runScheduler()
            #expect(try await harness.store.problems(appId: "alpha", status: .open, limit: 10).map(\.kind) == ["no_notifications"])
        }
    }
}
