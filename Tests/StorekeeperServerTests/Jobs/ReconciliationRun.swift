import AppStoreServerAPITesting
import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import SubscriptionEngine
import Testing

/// The span the reconciliation tests watch: FakeApple's subscribers from the fixture's start
/// through 62 days and 20 hours (two renewals, the refunds, the 30-day refund sweep twice), the
/// server's jobs running against Apple and the notifications Apple does not lose reaching the
/// inbox as they fall due.
struct ReconciliationRun {
    /// What the server answers for one subscriber at the horizon, next to Apple's truth.
    struct Answer {
        var subscriber: FakeApple.Subscriber
        var truth: SubscriptionState
        var status: String?
    }

    static let days = 62.0
    static let horizon = Fixture.t0.addingTimeInterval(days * Fixture.day + 20 * 3_600)
    static let subscriberCount = 24

    let harness: ServerHarness
    let apple: FakeApple

    init(_ harness: ServerHarness) {
        self.harness = harness
        apple = FakeApple(ca: harness.ca, clock: harness.clock, count: Self.subscriberCount, horizon: Self.horizon)
    }

    /// Moves the clock from the fixture's start to the horizon `step` seconds at a time. At each
    /// instant the notifications due reach the inbox, the inbox is processed, the scheduler runs
    /// the jobs due (reaching Apple through `client`, FakeApple's own by default), and what they
    /// brought in is processed.
    func advance(every step: TimeInterval, through client: AppStoreServerAPIFake? = nil) async throws {
        let runner = JobRunner(
            apps: try AppDirectory(configuration: harness.configuration), store: harness.store,
            clients: AppleClients(["alpha": client ?? apple.client]), clock: { harness.clock.now }, logger: ReconciliationTests.quiet,
            configuration: SchedulerConfiguration(refundSweepSeconds: 30 * Fixture.day))
        let scheduler = JobScheduler(runner: runner)
        var instant = Fixture.t0
        while true {
            harness.clock.set(min(instant, Self.horizon))
            try await ReconciliationTests.deliver(try apple.due(), to: harness.store, at: harness.clock.now)
            try await harness.processor.drain()
            try await scheduler.tick()
            try await harness.processor.drain()
            if instant >= Self.horizon { break }
            instant = instant.addingTimeInterval(step)
        }
    }

    /// Every subscriber's status as the API answers it at the horizon, with Apple's truth.
    func answers(_ client: some TestClientProtocol) async throws -> [Answer] {
        let catalog = try catalog()
        var answers: [Answer] = []
        for subscriber in apple.subscribers {
            let truth = try #require(try apple.trueState(subscriber.chain, at: Self.horizon, catalog: catalog))
            let status = try await client.status("alpha", subscriber.chain, key: Fixture.alphaKey)
            answers.append(Answer(subscriber: subscriber, truth: truth, status: status))
        }
        return answers
    }

    /// The app's catalog, as the server reads it from the fixture's configuration.
    func catalog() throws -> Catalog {
        try #require(try AppDirectory(configuration: harness.configuration).apps["alpha"]).catalog
    }
}
