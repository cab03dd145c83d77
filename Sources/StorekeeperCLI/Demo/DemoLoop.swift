import AppStoreModels
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StorekeeperServer
import StorekeeperStore

/// The demo's main loop over simulated time, then the comparison (with `--check`) or the live
/// phase (without).
struct DemoLoop {
    let world: DemoWorld
    let settings: DemoSettings
    let store: SQLStore
    let configuration: ServerConfiguration
    let counter: APICallCounter
    let client: HTTPClient
    let serverPort: Int
    let stop: DemoStop

    var serverBase: String { "http://127.0.0.1:\(serverPort)" }

    func run() async throws -> DemoRunner.Outcome {
        var logger = Logger(label: "storekeeper.demo")
        logger.logLevel = .error
        let clock = world.clock
        let apps = try AppDirectory(configuration: configuration)
        let processor = InboxProcessor(apps: apps, store: store, clock: { clock.now }, logger: logger)
        let runner = JobRunner(
            apps: apps, store: store, clients: try AppleClients.live(configuration: configuration, rateBudget: DemoWorld.rateBudget),
            clock: { clock.now }, logger: logger,
            configuration: SchedulerConfiguration())
        let scheduler = JobScheduler(runner: runner, owner: "demo")
        let population = world.makePopulation()
        if settings.sendsV1 { population.v1Builder = NotificationV1Builder(signer: world.signer, sharedSecret: world.sharedSecret) }
        var checkpoints = ScenarioCheckpoints(scenario: settings.scenario, start: world.start)
        let delivery = NotificationDelivery(
            store: world.store,
            configuration: DeliveryConfiguration(
                v2URL: URL(string: "\(serverBase)/v1/apps/\(DemoWorld.appId)/notifications"),
                v1URL: settings.sendsV1 ? URL(string: "\(serverBase)/v1/apps/\(DemoWorld.appId)/notifications") : nil, dropRate: settings.dropRate,
                duplicateRate: settings.duplicateRate, maximumDelay: 120, reorder: true, seed: settings.seed),
            transport: AsyncHTTPNotificationTransport(client: client))
        let reporter = DemoReporter(settings: settings, world: world, counter: counter)
        reporter.starting(serverBase: serverBase)

        let started = ContinuousClock.now
        let step = settings.stepHours * 3_600
        var instant = world.start
        var purchases = 0
        var processed = 0
        var nextReport = world.start.addingTimeInterval(Self.reportInterval(days: settings.days))
        while true {
            clock.set(instant)
            let output = try population.advance(to: instant)
            purchases += try await report(output.purchases)
            for record in output.notifications { _ = delivery.enqueue(record) }
            _ = await delivery.deliverDue(now: instant)
            processed += try await processor.drain()
            try await scheduler.tick()
            processed += try await processor.drain()
            if instant >= nextReport || instant >= world.end {
                reporter.progress(at: instant, population: population, delivery: delivery.totals, purchases: purchases, processed: processed)
                nextReport = nextReport.addingTimeInterval(Self.reportInterval(days: settings.days))
            }
            for expectation in checkpoints.due(at: instant) {
                try await checkpoints.check(expectation, population: population, client: client, serverBase: serverBase, key: world.adminKey)
            }
            if instant >= world.end { break }
            instant = min(instant.addingTimeInterval(step), world.end, checkpoints.next ?? world.end)
        }
        // Apple's notification history is the backstop for what never arrived: one last sweep
        // up to the end, as the scheduler runs every few hours anyway.
        if settings.reconciles {
            processed += try await finalSweep(scheduler: scheduler, processor: processor)
        }
        let elapsed = ContinuousClock.now - started
        reporter.simulated(elapsed: elapsed, delivery: delivery.totals, purchases: purchases, processed: processed)

        let comparison = try await DemoComparison(world: world, client: client, serverBase: serverBase).compare(at: world.end)
        reporter.comparison(comparison)
        if settings.scenario != nil {
            reporter.say("expectations met \(checkpoints.met)/\(checkpoints.checked)")
        }
        let success = comparison.allMatched && checkpoints.met == checkpoints.checked
        guard !settings.check else { return DemoRunner.Outcome(allMatched: success) }

        // Live: the clock follows real time from here; the population keeps living.
        clock.followWallClock(rate: settings.liveSpeed)
        reporter.live(serverBase: serverBase)
        while !stop.isSet, !Task.isCancelled {
            do {
                let now = clock.now
                let output = try population.advance(to: now)
                _ = try await report(output.purchases)
                for record in output.notifications { _ = delivery.enqueue(record) }
                _ = await delivery.deliverDue(now: now)
                _ = try await processor.drain()
                try await scheduler.tick()
                _ = try await processor.drain()
            } catch {
                if stop.isSet { break }
                throw error
            }
            try? await Task.sleep(for: .seconds(1))
        }
        return DemoRunner.Outcome(allMatched: success)
    }

    static func reportInterval(days: Double) -> TimeInterval {
        max(1, (days / 12).rounded()) * 86_400
    }

    /// Posts the purchases the devices saw to the server, as the app would.
    func report(_ purchases: [DevicePurchase]) async throws -> Int {
        for purchase in purchases {
            let body = try JSONSerialization.data(withJSONObject: ["signedTransaction": purchase.signedTransaction])
            let path = "/v1/apps/\(DemoWorld.appId)/customers/\(purchase.customerId)/purchases"
            let (status, text) = try await send(.POST, path, body: body)
            guard (200..<300).contains(status) else {
                throw CLIFailure(exitCode: 1, message: "the server refused a purchase (\(status)): \(text.prefix(300))")
            }
        }
        return purchases.count
    }

    /// Runs a notification-history sweep over the whole run now, then drains the inbox.
    func finalSweep(scheduler: JobScheduler, processor: InboxProcessor) async throws -> Int {
        let payload = SweepPayload(
            startMillis: Int64(world.start.timeIntervalSince1970 * 1000) - 86_400_000, endMillis: Int64(world.end.timeIntervalSince1970 * 1000) + 1)
        let text = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        try await store.enqueue(
            JobRecord(
                appId: DemoWorld.appId, kind: JobKind.notificationSweep.rawValue, payload: text, runAt: world.clock.now,
                idempotencyKey: "demo-final-sweep:\(payload.endMillis)"))
        _ = try await scheduler.runDue()
        return try await processor.drain()
    }

    func send(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> (Int, String) {
        try await DemoHTTP.send(client: client, method: method, url: serverBase + path, key: world.adminKey, body: body)
    }
}
