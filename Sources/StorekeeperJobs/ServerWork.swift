import Foundation
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperInbox
import StorekeeperStore

/// The server's background work, built once from its configuration: the inbox processor and
/// the reconciliation scheduler that `serve` runs as services. A driver of simulated time (the
/// demo) takes it from ``buildServer(configuration:dependencies:)`` and steps it by hand
/// (``step()``) instead of wiring its own.
public struct ServerWork: Sendable {
    /// What the notification route verified and counted, shared with the HTTP API.
    package let door: NotificationDoor
    package let processor: InboxProcessor
    package let scheduler: JobScheduler
    /// Sends the outbox's deliveries (webhooks).
    public let dispatcher: EventDispatcher

    /// The work for `configuration` over `dependencies`' store, clock and Apple clients, on an
    /// app directory of its own (tests that step the work without a server).
    public init(
        configuration: ServerConfiguration, dependencies: ServerDependencies, scheduling: SchedulerConfiguration = SchedulerConfiguration(),
        owner: String = "worker-\(UUID().uuidString.prefix(8))"
    ) throws {
        try self.init(
            apps: AppDirectory(configuration: configuration), door: NotificationDoor(), dependencies: dependencies, scheduling: scheduling,
            metrics: nil, inboxWritten: {}, owner: owner)
    }

    package init(
        apps: AppDirectory, door: NotificationDoor, dependencies: ServerDependencies, scheduling: SchedulerConfiguration,
        metrics: ServerMetrics?, inboxWritten: @escaping @Sendable () async -> Void, owner: String = "worker-\(UUID().uuidString.prefix(8))"
    ) {
        self.door = door
        processor = InboxProcessor(
            apps: apps, door: door, store: dependencies.store, clock: dependencies.clock, logger: dependencies.logger, metrics: metrics)
        var runner = JobRunner(
            apps: apps, store: dependencies.store, clients: dependencies.appleClients, clock: dependencies.clock,
            logger: dependencies.logger, configuration: scheduling, inboxWritten: inboxWritten, door: door)
        runner.transport = dependencies.webhookTransport
        runner.metrics = metrics
        scheduler = JobScheduler(runner: runner, owner: owner)
        dispatcher = EventDispatcher(
            apps: apps, store: dependencies.store, clock: dependencies.clock, logger: dependencies.logger,
            transport: dependencies.webhookTransport, metrics: metrics, owner: owner)
    }

    /// One step of a driver of simulated time: the inbox drained, the scheduler's pass, the
    /// inbox drained again (what the jobs wrote), then the outbox sent; returns how many inbox
    /// rows were handled.
    @discardableResult
    public func step() async throws -> Int {
        var processed = try await drainInbox()
        try await runScheduler()
        processed += try await drainInbox()
        try await dispatcher.drain()
        return processed
    }

    /// Processes every pending notification; returns how many rows were handled.
    @discardableResult
    public func drainInbox() async throws -> Int {
        try await processor.drain()
    }

    /// One scheduler pass: plans the periodic jobs, then runs every due job; returns how many ran.
    @discardableResult
    public func runScheduler() async throws -> Int {
        try await scheduler.tick()
    }

    /// The earliest instant a job or a webhook delivery falls due (possibly past); `nil` when
    /// nothing waits. A driver of simulated time jumps to it instead of stepping through idle time.
    public func nextWorkDate() async throws -> Date? {
        try await scheduler.runner.store.nextWorkDate()
    }

    /// Runs the jobs that are due, without planning; returns how many ran.
    @discardableResult
    public func runDueJobs() async throws -> Int {
        try await scheduler.runDue()
    }

    /// Asks for a sweep of Apple's notification history of `appId` over `start..<end` now (it
    /// replays what Apple failed to deliver into the inbox); it runs with the due jobs.
    public func requestNotificationSweep(appId: String, from start: Date, to end: Date) async throws {
        let runner = scheduler.runner
        let payload = SweepPayload(startMillis: start.millisecondsSince1970, endMillis: end.millisecondsSince1970)
        try await runner.store.enqueue(
            .notificationSweep(appId: appId, window: payload, runAt: runner.clock(), cause: "requested:\(payload.endMillis)"))
    }
}
