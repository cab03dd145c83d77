import Foundation
import Logging
import ServiceLifecycle
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperInbox
import StorekeeperStore

/// What the server runs on, injected: the store, the clock and the logger. Tests pass a
/// migrated store and a controllable clock; `storekeeper serve` passes the real ones.
public struct ServerDependencies: Sendable {
    public var store: any StorekeeperStorage
    /// Where reads that may lag go (a standby's store, ``SQLStore/standbyReads(url:maximumLag:logger:)``);
    /// `nil` for ``store``.
    public var reads: (any StorekeeperStorage)?
    /// How far the standby of ``reads`` is behind, for `/health` and `/metrics`.
    public var replication: ReplicationWatch?
    public var clock: @Sendable () -> Date
    public var logger: Logger
    /// Whether to run the inbox worker inside the application (tests may drain it themselves).
    public var runsInboxWorker: Bool
    /// Long-running services the store needs (PostgreSQL's connection pool), run beside the server.
    public var storeServices: [any Service]
    /// The App Store Server API client of each app with credentials (tests pass fakes).
    public var appleClients: AppleClients
    /// Whether to run the reconciliation scheduler, and how.
    public var scheduler: SchedulerConfiguration?
    /// Whether to run the event dispatcher (tests may send deliveries themselves).
    public var runsDispatcher = true
    /// How webhooks are sent; `nil` for real HTTP.
    public var webhookTransport: (any WebhookTransport)?
    /// Called with the bound TCP port once the server listens (useful with port 0).
    public var onServerRunning: (@Sendable (Int) async -> Void)?
    /// What the notification route wakes the inbox worker with; `nil` for one paced by the
    /// configuration (tests pass their own to watch it).
    public var inboxSignal: InboxSignal?
    /// The server's metrics when the caller made them first (so that Apple's clients count
    /// their answers into them, ``AppleClients/live(configuration:rateBudget:transport:metrics:)``);
    /// `nil` for a registry of the server's own.
    public var metrics: ServerMetrics?

    public init(
        store: any StorekeeperStorage, clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger,
        runsInboxWorker: Bool = true, storeServices: [any Service] = [],
        appleClients: AppleClients = AppleClients(), scheduler: SchedulerConfiguration? = nil
    ) {
        self.appleClients = appleClients
        self.scheduler = scheduler
        self.store = store
        self.clock = clock
        self.logger = logger
        self.runsInboxWorker = runsInboxWorker
        self.storeServices = storeServices
    }
}
