import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Logging
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

/// Runs one leased job of each ``JobKind``. Every job's effect is idempotent: facts go through
/// the ledger's keys, replayed notifications through the inbox's, follow-up jobs through the
/// queue's idempotency keys, so a job run twice (a lease that ran out) changes nothing more.
public struct JobRunner: Sendable {
    package let apps: AppDirectory
    package let store: any StorekeeperStorage
    package let clients: AppleClients
    package let clock: @Sendable () -> Date
    package let logger: Logger
    package let configuration: SchedulerConfiguration
    /// Called after notifications were added to the inbox (wakes the inbox worker).
    package let inboxWritten: @Sendable () async -> Void
    /// The notification route's counts, for the intake's health check.
    package let door: NotificationDoor
    /// Holds this replica's calls to Apple while Apple is away.
    package let breaker = AppleBreaker()
    /// How notifications are forwarded (``NotificationForwarder``); the scheduler's service
    /// makes a live one when this is `nil`.
    package var transport: (any WebhookTransport)?
    package var metrics: ServerMetrics?

    public init(
        apps: AppDirectory, store: any StorekeeperStorage, clients: AppleClients, clock: @escaping @Sendable () -> Date,
        logger: Logger, configuration: SchedulerConfiguration = SchedulerConfiguration(),
        inboxWritten: @escaping @Sendable () async -> Void = {}, door: NotificationDoor = NotificationDoor()
    ) {
        self.apps = apps
        self.door = door
        self.store = store
        self.clients = clients
        self.clock = clock
        self.logger = logger
        self.configuration = configuration
        self.inboxWritten = inboxWritten
    }

    /// Why a job cannot run and should not be retried.
    package struct PermanentFailure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Runs `job`; throws to have it retried (or failed for good by a ``PermanentFailure``).
    package func run(_ job: JobRecord) async throws {
        guard let app = apps.apps[job.appId] else { throw PermanentFailure(description: "no app \(job.appId) is configured") }
        if JobKind(rawValue: job.kind) == .intakeHealth {
            try await IntakeHealth(store: store, app: app, counters: door.counters, now: clock()).check()
            return
        }
        if JobKind(rawValue: job.kind) == .forwardNotification {
            let forwarder = NotificationForwarder(
                store: store, transport: transport, metrics: metrics, logger: logger, maximumAttempts: configuration.maximumAttempts)
            try await forwarder.forward(job, app: app)
            return
        }
        if JobKind(rawValue: job.kind) == .transitions {
            // The clock's transitions need no Apple: every app has them.
            let chain = try Self.decode(RefreshPayload.self, job).originalTransactionId
            try await FactIntake(store: store).recordTransitions(chain: chain, app: app, now: clock())
            return
        }
        guard let client = clients.client(for: job.appId) else {
            throw PermanentFailure(description: "app \(job.appId) has no App Store Server API credentials")
        }
        let kind = JobKind(rawValue: job.kind)
        let callsApple = [.refreshSubscription, .notificationSweep, .refundSweep, .refundCheck, .consumptionAnswer].contains(kind)
        if callsApple { try breaker.check(appId: app.id, now: clock()) }
        do {
            switch kind {
            case .refreshSubscription:
                try await refresh(job, app: app, client: client)
            case .planLooks:
                try await planLooks(app: app)
            case .notificationSweep:
                try await sweepNotifications(job, app: app, client: client)
            case .refundSweep:
                try await sweepRefunds(job, app: app, client: client)
            case .refundCheck:
                try await checkRefunds(job, app: app, client: client)
            case .consumptionAnswer:
                try await answerConsumption(job, app: app, client: client)
            default:
                throw PermanentFailure(description: "unknown job kind \(job.kind)")
            }
            if callsApple { breaker.record(appId: app.id, error: nil, now: clock()) }
        } catch {
            if callsApple { breaker.record(appId: app.id, error: error, now: clock()) }
            throw error
        }
    }

    package static func decode<T: Decodable>(_ type: T.Type, _ job: JobRecord) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(job.payload.utf8))
        } catch {
            throw PermanentFailure(description: "the payload of job \(job.id ?? 0) is not a \(type)")
        }
    }

    /// Enqueues a refresh of `chain` at its next look, if it has one; returns when it runs:
    /// once the notification-history sweep covering the look's instant has run and settled (see
    /// ``historyPending(through:app:now:)``), so that a lost notification is found in the
    /// history before Apple is asked.
    @discardableResult
    package func scheduleNextLook(chain: String, app: AppRuntime, now: Date) async throws -> Date? {
        let entries = try await store.ledger(appId: app.id, originalTransactionId: chain)
        guard let job = nextLook(chain: chain, entries: entries, app: app, now: now) else { return nil }
        try await store.enqueue(job)
        return job.runAt
    }

    /// The refresh of `chain` at its next look, given the chain's ledger entries, if it has one.
    package func nextLook(chain: String, entries: [LedgerEntry], app: AppRuntime, now: Date) -> JobRecord? {
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: now)
        guard let date = state.nextLooks[chain]?.date else { return nil }
        return .refresh(
            appId: app.id, chain: chain, cause: .look(date), runAt: afterSweep(covering: date), ledgerCount: entries.count,
            awaited: date)
    }

    /// When the periodic notification-history sweep whose window reaches past `date` has run
    /// and the notifications it replayed have had time to be processed.
    package func afterSweep(covering date: Date) -> Date {
        let period = configuration.notificationSweepSeconds
        let end = Double(JobScheduler.periodStart(date, period)) / 1000 + period
        return Date(timeIntervalSince1970: end + configuration.historySettleSeconds)
    }
}
