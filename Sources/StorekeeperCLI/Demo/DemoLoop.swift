import AppStoreModels
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StorekeeperEventsOut
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore

/// The demo's main loop over simulated time, then the comparison (with `--check`) or the live
/// phase (without).
struct DemoLoop {
    let world: DemoWorld
    let settings: DemoSettings
    /// The server's own background work (inbox and scheduler), stepped with simulated time.
    let work: ServerWork
    let counter: APICallCounter
    let client: HTTPClient
    let serverPort: Int
    let stop: DemoStop
    let receiver: DemoReceiver
    let receiverPort: Int
    /// The customers' phones, each running StorekeeperKit's core.
    let devices: DemoDevices

    var serverBase: String { "http://127.0.0.1:\(serverPort)" }

    func run() async throws -> DemoRunner.Outcome {
        let clock = world.clock
        let population = world.makePopulation()
        if settings.sendsV1 { population.v1Builder = NotificationV1Builder(signer: world.signer, sharedSecret: world.sharedSecret) }
        // Each customer's app asks the server for its app account token before it buys, as a
        // real app does, so the App Store reports the customer's purchases with it.
        for customerId in population.plannedCustomerIds {
            population.appAccountTokens[customerId] = try await devices.appAccountToken(of: customerId)
        }
        if settings.scenario == nil {
            try await DemoRetention.install { path, body in try await send(.PUT, path, body: body) }
        }
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
        reporter.say("  events      http://127.0.0.1:\(receiverPort)/events  (the app backend's webhook receiver: customer events as they arrive)")

        let started = ContinuousClock.now
        let step = settings.stepHours * 3_600
        var instant = world.start
        var purchases = 0
        var processed = 0
        var nextReport = world.start.addingTimeInterval(Self.reportInterval(days: settings.days))
        while true {
            clock.set(instant)
            let done = try await tick(at: instant, population: population, delivery: delivery)
            purchases += done.purchases
            processed += done.processed
            if instant >= nextReport || instant >= world.end {
                reporter.progress(at: instant, population: population, delivery: delivery.totals, purchases: purchases, processed: processed)
                nextReport = nextReport.addingTimeInterval(Self.reportInterval(days: settings.days))
            }
            for expectation in checkpoints.due(at: instant) {
                try await checkpoints.check(expectation, population: population, client: client, serverBase: serverBase, key: world.adminKey)
            }
            if instant >= world.end { break }
            instant = Self.nextStop(
                after: instant, start: world.start, step: step,
                due: [population.nextEventDate, delivery.nextDueDate, try await work.nextWorkDate()],
                fixed: [nextReport, checkpoints.next, world.end])
        }
        // Apple's notification history is the backstop for what never arrived: one last sweep
        // up to the end, as the scheduler runs every few hours anyway.
        if settings.reconciles {
            processed += try await finalSweep()
        }
        try await work.runDueJobs()
        try await work.dispatcher.drain()
        let elapsed = ContinuousClock.now - started
        reporter.simulated(elapsed: elapsed, delivery: delivery.totals, purchases: purchases, processed: processed)

        let comparison = try await DemoComparison(world: world, client: client, serverBase: serverBase).compare(at: world.end)
        reporter.comparison(comparison)
        let analytics = try await DemoAnalyticsComparison(world: world, client: client, serverBase: serverBase).compare()
        reporter.analytics(analytics)
        if settings.scenario != nil {
            reporter.say("expectations met \(checkpoints.met)/\(checkpoints.checked)")
        }
        let events = DemoEventComparison(world: world, receiver: receiver, retention: population.retentionOutcomes).compare()
        reporter.events(events, receiver: receiver)
        reporter.say(DemoRetention.summary(population.retentionOutcomes))
        reporter.say(DemoRetention.commitmentSummary(world.store))
        let problem = try await failingCustomerProblem()
        reporter.say(problem.line)
        let success = comparison.allMatched && analytics.allMatched && events.allMatched && problem.ok && checkpoints.met == checkpoints.checked
        guard !settings.check else { return DemoRunner.Outcome(allMatched: success) }

        // Live: the clock follows real time from here; the population keeps living.
        clock.followWallClock(rate: settings.liveSpeed)
        try await supportExample()
        reporter.live(serverBase: serverBase)
        while !stop.isSet, !Task.isCancelled {
            do {
                _ = try await tick(at: clock.now, population: population, delivery: delivery)
            } catch {
                if stop.isSet { break }
                throw error
            }
            try? await Task.sleep(for: .seconds(1))
        }
        return DemoRunner.Outcome(allMatched: success)
    }

    /// One tick, in simulated time and live alike: the population lives up to `instant`, the
    /// devices report their purchases, Apple delivers what is due, and the server's work steps.
    private func tick(
        at instant: Date, population: PopulationSimulator, delivery: NotificationDelivery
    ) async throws -> (purchases: Int, processed: Int) {
        var output = try population.advance(to: instant)
        var purchases = 0
        while true {
            purchases += try await report(output.purchases)
            for record in output.notifications { _ = delivery.enqueue(record) }
            guard !output.retentionRequests.isEmpty else { break }
            // A customer opened the cancellation sheet: Apple asks the server, the customer
            // decides, and only then does the population go on.
            for request in output.retentionRequests {
                let answer = try await DemoRetention.ask(request, world: world, client: client, serverBase: serverBase)
                let decided = try population.resolveRetention(request, answer: answer)
                purchases += try await report(decided.purchases)
                for record in decided.notifications { _ = delivery.enqueue(record) }
            }
            output = try population.advance(to: instant)
        }
        _ = await delivery.deliverDue(now: instant)
        return (purchases, try await work.step())
    }

    /// The loop's next instant, from event to event on a grid of `step` from `start`: the end
    /// of the step in which the earliest of `due` falls (what falls due within one step is
    /// handled together, as the server's own polling would), or an earlier `fixed` instant
    /// (reports, checkpoints, the end). Steps in which nothing falls due are skipped: the
    /// periodic sweeps and plans, each covering the time since its previous run, catch up at
    /// the next stop.
    static func nextStop(after instant: Date, start: Date, step: TimeInterval, due: [Date?], fixed: [Date?]) -> Date {
        let following = start.addingTimeInterval(((instant.timeIntervalSince(start) / step).rounded(.down) + 1) * step)
        let earliest = due.compactMap { $0 }.min() ?? .distantFuture
        let grid = max(following, start.addingTimeInterval((earliest.timeIntervalSince(start) / step).rounded(.up) * step))
        return ([grid] + fixed.compactMap { $0 }.filter { $0 > instant }).min() ?? grid
    }

    static func reportInterval(days: Double) -> TimeInterval {
        max(1, (days / 12).rounded()) * 86_400
    }

    /// Hands the purchases the customers made to their phones' StorekeeperKit, which delivers
    /// each through the server (posted, finished once recorded).
    func report(_ purchases: [DevicePurchase]) async throws -> Int {
        for purchase in purchases {
            let outcome = try await devices.deliver(purchase)
            guard case .delivered = outcome else {
                throw CLIFailure(exitCode: 1, message: "a purchase did not reach the server through StorekeeperKit: \(outcome)")
            }
        }
        return purchases.count
    }

    /// Whether the customer the demo's backend refuses got a `charged_not_delivered` problem and
    /// its alert, when their first paid event is old enough for the retries to have run out.
    func failingCustomerProblem() async throws -> (ok: Bool, line: String) {
        // Every retry runs at the loop's next step once due: the bound is reached after the
        // retry schedule (with its jitter) plus a step per attempt.
        let bound = RetrySchedule.delays.reduce(0, +) * 1.1 + Double(RetrySchedule.delays.count + 1) * settings.stepHours * 3_600
        let paid = world.store.transactions(ofCustomer: DemoWorld.failingCustomer).filter { transaction in
            transaction.offerDiscountType != .freeTrial && (transaction.purchaseDate ?? .distantFuture) < world.end.addingTimeInterval(-bound)
        }
        guard !paid.isEmpty else { return (true, "problems: \(DemoWorld.failingCustomer) made no payment early enough for the retries to run out") }
        let (status, text) = try await send(.GET, "/v1/apps/\(DemoWorld.appId)/problems?status=open")
        let problems = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["problems"] as? [[String: Any]] ?? []
        let ticket = problems.first { $0["kind"] as? String == "charged_not_delivered" && $0["customerId"] as? String == DemoWorld.failingCustomer }
        let alerted = receiver.alerts.contains { $0.type == EventType.problemOpened.rawValue && $0.customerId == DemoWorld.failingCustomer }
        let ok = status == 200 && ticket != nil && alerted
        return (
            ok,
            ok
                ? "problems: \(DemoWorld.failingCustomer) paid but the backend refused every delivery: ticket opened (\(ticket?["amount"] ?? "") \(ticket?["currency"] ?? "")) and alerted"
                : "problems: MISSING the ticket or alert for \(DemoWorld.failingCustomer) (answer \(status), alert \(alerted))"
        )
    }

    /// A support action as an operator would take one (a week's goodwill grant to the first
    /// subscriber, through the admin API), so the dashboard's audit log and timelines show one.
    func supportExample() async throws {
        guard let subscriber = world.store.subscriptions().first, let product = world.population.products.first?.productId else { return }
        let body = try JSONSerialization.data(withJSONObject: [
            "productId": product, "grantId": "demo-goodwill", "endDate": Timestamp.string(from: world.clock.now.addingTimeInterval(7 * 86_400)),
            "reason": "demo: a week of goodwill after a support ticket",
        ])
        let (status, text) = try await send(.POST, "/v1/apps/\(DemoWorld.appId)/customers/\(subscriber.customerId)/grants", body: body)
        guard (200..<300).contains(status) else {
            throw CLIFailure(exitCode: 1, message: "the server refused the demo's goodwill grant (\(status)): \(text.prefix(300))")
        }
    }

    /// Runs a notification-history sweep over the whole run now (as far back as Apple's history
    /// reaches, 180 days), then drains the inbox.
    func finalSweep() async throws -> Int {
        let reach = world.end.addingTimeInterval(-179 * 86_400)
        try await work.requestNotificationSweep(
            appId: DemoWorld.appId, from: max(world.start.addingTimeInterval(-86_400), reach), to: world.end.addingTimeInterval(0.001))
        try await work.runDueJobs()
        return try await work.drainInbox()
    }

    func send(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> (Int, String) {
        try await DemoHTTP.send(client: client, method: method, url: serverBase + path, key: world.adminKey, body: body)
    }
}
