import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StorekeeperApps
import StorekeeperStore

/// Sends the outbox: leases due deliveries (several dispatchers never hold one at once), posts
/// each to its webhook signed the Standard Webhooks way, and records the attempt: delivered on
/// 2xx; retried on anything else (a 3xx is a failure and never followed; 429, 502, 503 and 504
/// wait at least their `Retry-After`, and a 429 pauses the whole destination that long); dead
/// after the last retry; a 410 disables the webhook.
public struct EventDispatcher: Service {
    package let apps: AppDirectory
    package let store: any StorekeeperStorage
    package let clock: @Sendable () -> Date
    package let logger: Logger
    /// `nil` until ``run()`` makes the live one (and shuts it down at the end).
    package var transport: (any WebhookTransport)?
    package let metrics: ServerMetrics?
    public let owner: String
    package var pollInterval: Duration = .seconds(1)
    package var batchSize = 50
    package var leaseSeconds: TimeInterval = 60
    package var timeout: TimeAmount = .seconds(15)
    /// Slack's one message a second per webhook, and the pauses 429s asked for, across this
    /// process's dispatch passes.
    package let pacing = Pacing()
    /// A number in -0.1…0.1 for each retry's jitter.
    package var jitter: @Sendable () -> Double = { Double.random(in: -0.1...0.1) }

    package init(
        apps: AppDirectory, store: any StorekeeperStorage, clock: @escaping @Sendable () -> Date, logger: Logger,
        transport: (any WebhookTransport)?, metrics: ServerMetrics?, owner: String = "dispatcher-\(UUID().uuidString.prefix(8))"
    ) {
        self.apps = apps
        self.store = store
        self.clock = clock
        self.logger = logger
        self.transport = transport
        self.metrics = metrics
        self.owner = owner
    }

    public func run() async throws {
        // SQLite has one server process: leases a killed process held are free now.
        if store.backendName == "sqlite" { try? await store.releaseDeliveryLeases() }
        var dispatcher = self
        var client: HTTPClient?
        if transport == nil {
            client = HTTPWebhookTransport.makeClient()
            dispatcher.transport = HTTPWebhookTransport(client: client!)
        }
        await dispatcher.loop()
        try? await client?.shutdown()
    }

    private func loop() async {
        await cancelWhenGracefulShutdown {
            var failures = FailureLog()
            while !Task.isCancelled {
                do {
                    let sent = try await dispatchDue()
                    FailureLog.write(failures.succeeded(), name: "event delivery", error: nil, to: logger)
                    if sent > 0 { continue }
                } catch {
                    FailureLog.write(failures.failed(at: Date()), name: "event delivery", error: error, to: logger)
                }
                try? await Task.sleep(for: pollInterval)
            }
        }
    }

    /// Leases one batch of due deliveries and sends them, each destination's in order and up to
    /// eight destinations at a time; returns how many deliveries were attempted.
    @discardableResult
    public func dispatchDue() async throws -> Int {
        let now = clock()
        if apps.apps.values.contains(where: { $0.storedWebhooks.isStale(at: now) }) {
            try await apps.reloadWebhooks(store: store, now: now)
        }
        let batch = try await store.leaseDeliveries(limit: batchSize, owner: owner, now: now, leaseUntil: now.addingTimeInterval(leaseSeconds))
        let groups = Dictionary(grouping: batch) { "\($0.appId)\u{1F}\($0.destination)" }.values.map { $0.sorted { $0.id < $1.id } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var running = 0
            for deliveries in groups {
                if running == 8 {
                    try await group.next()
                    running -= 1
                }
                group.addTask { try await send(deliveries) }
                running += 1
            }
            try await group.waitForAll()
        }
        return batch.count
    }

    /// Sends every due delivery until none is left (the demo and tests step time by hand).
    @discardableResult
    public func drain() async throws -> Int {
        var total = 0
        while true {
            let sent = try await dispatchDue()
            if sent == 0 { return total }
            total += sent
        }
    }

    /// Records an attempt's outcome for `delivery`.
    package func finish(
        _ delivery: OutboxDelivery, at now: Date, started: ContinuousClock.Instant, status: Int?, error: String?, outcome: DeliveryOutcome
    )
        async throws
    {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        try await store.finishDelivery(
            id: delivery.id, owner: owner,
            attempt: DeliveryAttempt(deliveryId: delivery.id, at: now, status: status, error: error, durationMilliseconds: milliseconds),
            outcome: outcome)
        metrics?.delivery(destination: delivery.destination, outcome: outcome, seconds: Double(milliseconds) / 1000)
        try await noteProblems(delivery, outcome: outcome, error: error, at: now)
    }
}
