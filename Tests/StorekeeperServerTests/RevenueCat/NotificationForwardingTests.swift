import Foundation
import HummingbirdTesting
import Logging
import NIOCore
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Synchronization
import Testing

/// A second backend that does not answer until it is let go (or answers at once once it was).
final class HangingTransport: WebhookTransport {
    private let state = Mutex<(released: Bool, posts: [Data], waiting: [CheckedContinuation<Void, Never>])>((false, [], []))

    var posts: [Data] { state.withLock { $0.posts } }

    func release() {
        let waiting = state.withLock { state in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func post(url: String, headers: [(String, String)], body: Data, timeout: TimeAmount) async throws -> WebhookAnswer {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state in
                if !state.released { state.waiting.append(continuation) }
                return state.released
            }
            if released { continuation.resume() }
        }
        state.withLock { $0.posts.append(body) }
        return WebhookAnswer(status: 200)
    }
}

@Suite("Notification forwarding: each accepted notification to the second URL once, never before Apple's 200")
struct NotificationForwardingTests {
    static let url = "http://127.0.0.1:9/apple-notifications"

    static func configure(_ configuration: inout ServerConfiguration) {
        let index = configuration.apps.firstIndex { $0.id == "alpha" }!
        configuration.apps[index].allowPrivateNetworks = true
        configuration.apps[index].notificationForwarding = NotificationForwarding(url: url)
    }

    /// `count` distinct notifications, each a new chain.
    static func notifications(_ harness: ServerHarness, count: Int, first: Int) throws -> [String] {
        try (0..<count).map { try SignedData.subscribed(harness.ca, chain: "\(first + $0)", now: harness.clock.now) }
    }

    @Test(
        "N distinct notifications and Apple's repeats (exact and re-signed) reach the second URL once each, byte for byte",
        arguments: ServerBackend.available)
    func exactlyOnce(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try WebhookTests.work(harness, transport)
            harness.clock.set(Fixture.t0 + 3600)
            let bodies = try Self.notifications(harness, count: 6, first: 7100)
            for body in bodies { #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200) }
            // Apple sends two of them again, byte for byte: the door keeps one of each.
            for body in bodies.prefix(2) {
                let again = try await client.call(.post, "/v1/apps/alpha/notifications", body: body)
                #expect(again.status == 200 && again.json["duplicate"] as? Bool == true)
            }
            // A notification for another app is not forwarded.
            let other = try SignedData.subscribed(harness.ca, chain: "7199", now: harness.clock.now)
            #expect(try await client.call(.post, "/v1/apps/gamma/notifications", body: other).status == 200)
            try await harness.processor.drain()
            // Apple resends one with the same notificationUUID in a new signature: a new inbox row, decided a duplicate.
            let uuid = UUID().uuidString
            let t = harness.clock.now
            let transaction = try SignedData.transaction(
                id: "7150", original: "7150", purchase: t - 3600, expires: t + 30 * Fixture.day, signed: t - 60)
            let renewal = try SignedData.renewal(original: "7150", autoRenew: true, signed: t - 60)
            let signedOnce = try SignedData.notification(
                harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: uuid, signed: t - 60, transaction: transaction, renewal: renewal)
            let signedTwice = try SignedData.notification(
                harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: uuid, signed: t - 30, transaction: transaction, renewal: renewal)
            #expect(signedOnce != signedTwice)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: signedOnce).status == 200)
            try await harness.processor.drain()
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: signedTwice).status == 200)
            try await harness.processor.drain()
            let rows = try await harness.store.notifications(appId: "alpha", filter: NotificationFilter(limit: 50))
            #expect(rows.count == 8 && rows.filter { $0.state == .duplicate }.count == 1)

            try await work.runDueJobs()
            try await work.runDueJobs()
            let posts = await transport.posts.filter { $0.url == Self.url }
            #expect(posts.count == 7, "\(posts.count)")
            #expect(Set(posts.map(\.body)) == Set((bodies + [signedOnce]).map { Data($0.utf8) }))
            #expect(posts.allSatisfy { $0.headers["content-type"] == "application/json" })
            let total = await transport.posts.count
            #expect(total == 7)
            // A later pass, and the same rows seen again, forward nothing more.
            harness.clock.set(harness.clock.now + 86_400)
            try await work.runDueJobs()
            let later = await transport.posts.count
            #expect(later == 7)
        }
    }

    @Test("while the second URL hangs, Apple's 200 comes at once; the forward arrives when it answers")
    func hangingURL() async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let transport = HangingTransport()
            var logger = Logger(label: "test.forwarding")
            logger.logLevel = .critical
            var dependencies = ServerDependencies(store: harness.store, clock: { harness.clock.now }, logger: logger, runsInboxWorker: false)
            dependencies.webhookTransport = transport
            let work = try ServerWork(configuration: harness.configuration, dependencies: dependencies)
            harness.clock.set(Fixture.t0 + 3600)
            let bodies = try Self.notifications(harness, count: 3, first: 7200)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: bodies[0]).status == 200)
            try await harness.processor.drain()
            // The forward of the first notification is in flight and hangs.
            let running = Task { try await work.runDueJobs() }
            try await Task.sleep(for: .milliseconds(200))
            #expect(transport.posts.isEmpty)
            // Apple's POSTs are answered while the forward still hangs (it is released only
            // after them): the door never waits for the second URL, however slow the machine.
            for body in bodies.dropFirst() {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            }
            #expect(transport.posts.isEmpty)
            try await harness.processor.drain()
            transport.release()
            _ = try await running.value
            try await work.runDueJobs()
            #expect(Set(transport.posts) == Set(bodies.map { Data($0.utf8) }) && transport.posts.count == 3)
        }
    }

    @Test("a second URL that is down gets each forward once it is back, retried with backoff; a restart loses and repeats nothing")
    func downThenBackAcrossRestart() async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let down = RecordingTransport()
            await down.answer(WebhookAnswer(status: 503), WebhookAnswer(status: 503), WebhookAnswer(status: 503), WebhookAnswer(status: 502))
            let before = try WebhookTests.work(harness, down)
            harness.clock.set(Fixture.t0 + 3600)
            let bodies = try Self.notifications(harness, count: 4, first: 7300)
            for body in bodies { #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200) }
            try await harness.processor.drain()
            try await before.runDueJobs()
            #expect(await down.posts.count == 4)
            // Retried no sooner than the backoff.
            try await before.runDueJobs()
            #expect(await down.posts.count == 4)
            let jobs = try await harness.store.jobs(appId: "alpha", kind: "forwardNotification", limit: 50)
            #expect(jobs.count == 4 && jobs.allSatisfy { $0.state == .pending && $0.attempts == 1 && $0.lastError?.contains("HTTP 50") == true })

            // The server restarts (a new process over the same database) and the URL is back.
            let back = RecordingTransport()
            let after = try WebhookTests.work(harness, back)
            harness.clock.set(harness.clock.now + 31)
            try await after.runDueJobs()
            let forwarded = await back.posts
            #expect(Set(forwarded.map(\.body)) == Set(bodies.map { Data($0.utf8) }) && forwarded.count == 4)
            harness.clock.set(harness.clock.now + 86_400)
            try await after.runDueJobs()
            try await before.runDueJobs()
            let (backCount, downCount) = (await back.posts.count, await down.posts.count)
            #expect(backCount == 4 && downCount == 4)
            let done = try await harness.store.jobs(appId: "alpha", kind: "forwardNotification", limit: 50)
            #expect(done.count == 4 && done.allSatisfy { $0.state == .done })
        }
    }

    @Test("a V1 notification is forwarded once, as stored: Apple's JSON without its password")
    func v1WithoutPassword() async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try WebhookTests.work(harness, transport)
            let world = try V1NotificationSecurityTests.World(harness: harness)
            let body = try V1NotificationSecurityTests.text(try world.subscribedBody())
            #expect(body.contains("alpha-shared-secret"))
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).json["duplicate"] as? Bool == true)
            try await harness.processor.drain()
            try await work.runDueJobs()
            let posts = await transport.posts
            let stored = try #require(try await harness.store.notifications(appId: "alpha", filter: NotificationFilter(includesBodies: true)).first)
            #expect(posts.count == 1 && posts.first?.body == Data(stored.body.utf8))
            #expect(posts.first.map { !String(decoding: $0.body, as: UTF8.self).contains("password") } == true)
            #expect(posts.first?.json["latest_receipt"] != nil || (posts.first?.json["unified_receipt"] as? [String: Any])?["latest_receipt"] != nil)
        }
    }

    @Test("each attempt is counted by outcome; a private URL is refused unless the app allows private networks; the last failure gives up")
    func outcomesAndRules() async throws {
        try await ServerHarness.run(.memory, configure: Self.configure) { harness, client in
            harness.clock.set(Fixture.t0 + 3600)
            let body = try SignedData.subscribed(harness.ca, chain: "7400", now: harness.clock.now)
            let posted = try await client.call(.post, "/v1/apps/alpha/notifications", body: body)
            let inboxId = Int64(try #require(posted.json["id"] as? Int))
            let transport = RecordingTransport()
            await transport.answer(WebhookAnswer(status: 500), WebhookAnswer(status: 500), WebhookAnswer(status: 200))
            let metrics = ServerMetrics()
            var logger = Logger(label: "test.forwarding")
            logger.logLevel = .critical
            let forwarder = NotificationForwarder(store: harness.store, transport: transport, metrics: metrics, logger: logger, maximumAttempts: 2)
            var job = JobRecord.forwardNotification(
                appId: "alpha", inboxId: inboxId, notificationUUID: "u", rowKey: "v2:u:d", runAt: harness.clock.now)
            #expect(job.idempotencyKey == "forward:v2:u")
            var apps = try AppDirectory(configuration: harness.configuration)
            let alpha = try #require(apps.apps["alpha"])
            job.attempts = 1
            await #expect(throws: NotificationForwarder.Failure.self) { try await forwarder.forward(job, app: alpha) }
            job.attempts = NotificationForwarder.attempts(configured: 2)
            await #expect(throws: NotificationForwarder.Failure.self) { try await forwarder.forward(job, app: alpha) }
            job.attempts = 1
            try await forwarder.forward(job, app: alpha)
            let text = metrics.exposition()
            for outcome in ["failed", "abandoned", "delivered"] {
                #expect(text.contains("storekeeper_notifications_forwarded_total{outcome=\"\(outcome)\"} 1"), "\(text)")
            }
            // Without allowPrivateNetworks, a loopback URL is never posted to.
            var configuration = harness.configuration
            let index = configuration.apps.firstIndex { $0.id == "alpha" }!
            configuration.apps[index].allowPrivateNetworks = false
            apps = try AppDirectory(configuration: configuration)
            let strict = try #require(apps.apps["alpha"])
            await #expect(throws: JobRunner.PermanentFailure.self) { try await forwarder.forward(job, app: strict) }
            #expect(metrics.exposition().contains("storekeeper_notifications_forwarded_total{outcome=\"refused\"} 1"))
            #expect(await transport.posts.count == 3)
        }
    }

    @Test("a second backend that is down keeps getting retries for about three days, as Apple retries its own")
    func retriesForDays() {
        let configured = 8
        let attempts = NotificationForwarder.attempts(configured: configured)
        var now = Fixture.t0
        var tries = 1
        let failure = NotificationForwarder.Failure(description: "HTTP 503")
        while let next = JobScheduler.retryDate(after: failure, attempts: tries, maximumAttempts: attempts, now: now) {
            now = next
            tries += 1
        }
        #expect(tries == attempts)
        #expect(now.timeIntervalSince(Fixture.t0) > 3 * 86_400, "\(now.timeIntervalSince(Fixture.t0) / 86_400) days")
        // Other jobs give up after the configured attempts, as before.
        #expect(JobScheduler.retryDate(after: failure, attempts: configured, maximumAttempts: configured, now: Fixture.t0) == nil)
    }

    @Test("a running server answers Apple, then its scheduler forwards over HTTP with a client of its own")
    func liveServer() async throws {
        let destination = try await LoopbackDestination()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-forward-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (fixture, ca) = try Fixture.configuration(directory: directory)
        var configuration = fixture
        let index = configuration.apps.firstIndex { $0.id == "alpha" }!
        configuration.apps[index].allowPrivateNetworks = true
        configuration.apps[index].notificationForwarding = NotificationForwarding(url: destination.base + "/apple")
        let settings = configuration
        do {
            try await withServerStore(.sqlite) { store in
                for app in settings.apps { try await store.saveApp(AppRecord(id: app.id, bundleId: app.bundleId, createdAt: Fixture.t0)) }
                var logger = Logger(label: "test.forwarding")
                logger.logLevel = .critical
                var dependencies = ServerDependencies(
                    store: store, logger: logger, runsInboxWorker: true, scheduler: SchedulerConfiguration(pollIntervalSeconds: 0.1))
                dependencies.runsDispatcher = false
                let app = try buildApplication(configuration: settings, dependencies: dependencies)
                try await app.test(.live) { client in
                    let bodies = try (0..<3).map { try SignedData.subscribed(ca, chain: "\(7500 + $0)", now: Date()) }
                    for body in bodies { #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200) }
                    let deadline = ContinuousClock.now + .seconds(90)
                    while destination.requests(pathContaining: "/apple").count < 3, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    let forwarded = destination.requests(pathContaining: "/apple")
                    #expect(Set(forwarded.map(\.body)) == Set(bodies.map { Data($0.utf8) }) && forwarded.count == 3)
                    #expect(forwarded.allSatisfy { $0.headers.first { $0.key.lowercased() == "content-type" }?.value == "application/json" })
                    let metrics = try await client.call(.get, "/metrics")
                    #expect(metrics.text.contains("storekeeper_notifications_forwarded_total{outcome=\"delivered\"} 3"), "\(metrics.text)")
                }
            }
        } catch {
            await destination.stop()
            throw error
        }
        await destination.stop()
    }
}
