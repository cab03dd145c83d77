import AppStoreModels
import AppStoreVerification
import Foundation
import Logging
import StorekeeperStore
import SubscriptionEngine

/// Turns inbox rows into ledger facts: verify, check the app, filter, record, emit events.
///
/// Every step is idempotent (the ledger and the event log ignore repeats) and each row's
/// writes commit in one transaction with its new state, so a crash at any point leaves the
/// row pending and a later pass finishes it. Rows that cannot be verified are marked
/// rejected with their reason and change nothing else.
public struct InboxProcessor: Sendable {
    /// What processing needs of the store: the inbox, the ledger and customers (through the
    /// intake), and the job queue (refreshes a V1 notification asks for).
    public typealias Storage = NotificationInbox & LedgerRepository & CustomerRepository & JobQueue & EventLog

    let apps: AppDirectory
    let store: any InboxProcessor.Storage
    let clock: @Sendable () -> Date
    let logger: Logger
    let metrics: ServerMetrics?
    /// The lease owner's name: unique per process.
    let owner: String
    var intake: FactIntake { FactIntake(store: store) }

    public init(apps: AppDirectory, store: any InboxProcessor.Storage, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.init(apps: apps, store: store, clock: clock, logger: logger, metrics: nil)
    }

    init(apps: AppDirectory, store: any InboxProcessor.Storage, clock: @escaping @Sendable () -> Date, logger: Logger, metrics: ServerMetrics?) {
        self.apps = apps
        self.store = store
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        owner = "worker-\(UUID().uuidString.prefix(8))"
    }

    /// Processes pending rows until none is left; returns how many were handled.
    ///
    /// The V2 rows of a batch are verified concurrently first (signature checks are pure
    /// computation and touch no store); their effects are then decided and applied one row at
    /// a time in inbox order, exactly as without the head start.
    ///
    /// A row whose processing throws is left pending under its lease (so it waits a lease
    /// before its next try) and never stops the rows after it; once it has been claimed
    /// `maximumAttempts` times it is marked ``InboxState/failed`` with its last error. Only an
    /// unreachable database ends the drain early (the worker retries later).
    @discardableResult
    public func drain(batchSize: Int = 32, leaseSeconds: Double = 30, maximumAttempts: Int = 5) async throws -> Int {
        var handled = 0
        while true {
            let now = clock()
            let batch = try await store.claimPending(
                limit: batchSize, owner: owner, now: now, leaseUntil: now.addingTimeInterval(leaseSeconds))
            if batch.isEmpty { return handled }
            let verifications = await verifyConcurrently(batch, now: now)
            for row in batch {
                handled += 1
                guard row.attempts <= maximumAttempts else {
                    try await fail(row, reason: "abandoned: processing did not finish in \(maximumAttempts) attempts")
                    continue
                }
                do {
                    try await process(row, verification: row.id.flatMap { verifications[$0] })
                } catch {
                    if (error as? StoreError)?.code == .unavailable { throw error }
                    let reason = "processing_failed: " + InboxText.summary(of: error)
                    logger.warning(
                        "notification processing failed",
                        metadata: [
                            "app": "\(row.appId)", "inbox_id": "\(row.id ?? 0)", "attempt": "\(row.attempts)", "error": "\(reason)",
                        ])
                    if row.attempts >= maximumAttempts { try await fail(row, reason: reason) }
                }
            }
        }
    }

    /// Marks a poison row failed, with its reason, so it no longer takes a worker's time.
    func fail(_ row: InboxNotification, reason: String) async throws {
        guard let id = row.id else { return }
        let now = clock()
        try await store.apply(
            Changeset(
                appId: row.appId, at: now,
                inboxOutcome: InboxOutcome(
                    inboxId: id, state: .failed, failureReason: reason, processedAt: now)))
        metrics?.notificationProcessed(state: InboxState.failed.rawValue)
        logger.error("notification failed for good", metadata: ["app": "\(row.appId)", "inbox_id": "\(id)", "reason": "\(reason)"])
    }

    /// Processes one row and records its outcome; `verification` is the row's V2 verification
    /// when it was done ahead (see ``drain(batchSize:leaseSeconds:maximumAttempts:)``).
    func process(_ row: InboxNotification, verification: V2Verification? = nil) async throws {
        guard let id = row.id else { return }
        let now = clock()
        let changeset: Changeset
        if let app = apps.apps[row.appId] {
            switch row.version {
            case .v2: changeset = try await processV2(row, id: id, app: app, now: now, verification: verification)
            case .v1: changeset = try await processV1(row, id: id, app: app, now: now)
            }
        } else {
            changeset = Self.rejected(row, id: id, reason: "unknown_app: no app \(row.appId) is configured", now: now)
        }
        try await store.apply(changeset)
        let state = changeset.inboxOutcome?.state ?? .pending
        metrics?.notificationProcessed(state: state.rawValue)
        if state == .rejected {
            logger.notice(
                "notification rejected",
                metadata: [
                    "app": "\(row.appId)", "inbox_id": "\(id)", "reason": "\(changeset.inboxOutcome?.failureReason ?? "")",
                ])
        }
    }

    static func rejected(_ row: InboxNotification, id: Int64, reason: String, now: Date, metadata: NotificationMetadata? = nil) -> Changeset {
        Changeset(
            appId: row.appId, at: now,
            inboxOutcome: InboxOutcome(
                inboxId: id, state: .rejected, failureReason: reason, metadata: metadata, processedAt: now))
    }

    private func processV2(
        _ row: InboxNotification, id: Int64, app: AppRuntime, now: Date, verification: V2Verification?
    ) async throws -> Changeset {
        let verified: VerifiedNotification
        let signedPayload: String
        let outcome: V2Verification
        if let verification { outcome = verification } else { outcome = await Self.verifyV2(row, app: app, now: now) }
        switch outcome {
        case .refused(let reason):
            return Self.rejected(row, id: id, reason: reason, now: now)
        case .verified(let value, let payload):
            verified = value
            signedPayload = payload
        }
        let notification = verified.notification
        let chain = verified.transaction?.originalTransactionId ?? verified.renewalInfo?.originalTransactionId
        let metadata = NotificationMetadata(
            notificationUUID: InboxText.field(notification.notificationUUID),
            notificationType: InboxText.field(notification.notificationType?.rawValue),
            subtype: InboxText.field(notification.subtype?.rawValue), originalTransactionId: InboxText.field(chain),
            signedDate: notification.signedDate, environment: InboxText.field(notification.data?.environment?.rawValue))
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let reason = filter.check(
            bundleId: verified.transaction?.bundleId ?? notification.data?.bundleId,
            environment: notification.data?.environment ?? verified.transaction?.environment,
            productIds: [verified.transaction?.productId].compactMap { $0 })
        {
            return Self.rejected(row, id: id, reason: reason, now: now, metadata: metadata)
        }
        if let uuid = notification.notificationUUID,
            (try? await store.isProcessed(appId: row.appId, notificationUUID: uuid, exceptId: id)) == true
        {
            return Changeset(
                appId: row.appId, at: now,
                inboxOutcome: InboxOutcome(
                    inboxId: id, state: .duplicate, metadata: metadata, processedAt: now))
        }
        var history = PurchaseHistory()
        history.add(notification: notification, transaction: verified.transaction, renewalInfo: verified.renewalInfo)
        let key = metadata.notificationUUID.map { "notification:\($0.lowercased())" } ?? "notification:inbox-\(id)"
        let event = EventRecord(
            appId: row.appId, originalTransactionId: chain, type: .notificationProcessed,
            details: EventDetails(
                notificationType: metadata.notificationType, subtype: metadata.subtype, notificationUUID: metadata.notificationUUID,
                inboxId: "\(id)"),
            occurredAt: notification.signedDate ?? now, idempotencyKey: key)
        var events = [event]
        if notification.notificationType == .consumptionRequest, let uuid = metadata.notificationUUID, let transaction = verified.transaction {
            events.append(
                CustomerEvents.consumptionRequested(
                    runtime: app, notificationUUID: uuid, transaction: transaction, at: notification.signedDate ?? now))
        }
        return try await intake.changeset(
            for: FactSubmission(
                facts: FactSubmission.facts(of: history), source: .notificationV2, raw: signedPayload,
                binding: .apple(appAccountToken: verified.transaction?.appAccountToken), events: events,
                inboxOutcome: InboxOutcome(inboxId: id, state: .processed, metadata: metadata, processedAt: now)), app: app, now: now)
    }
}
