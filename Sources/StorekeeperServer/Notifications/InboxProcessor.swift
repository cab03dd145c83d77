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
    let apps: AppDirectory
    let store: any StorekeeperStorage
    let clock: @Sendable () -> Date
    let logger: Logger
    let metrics: ServerMetrics?
    /// The lease owner's name: unique per process.
    let owner: String

    public init(apps: AppDirectory, store: any StorekeeperStorage, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.init(apps: apps, store: store, clock: clock, logger: logger, metrics: nil)
    }

    init(apps: AppDirectory, store: any StorekeeperStorage, clock: @escaping @Sendable () -> Date, logger: Logger, metrics: ServerMetrics?) {
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
    @discardableResult
    public func drain(batchSize: Int = 32, leaseSeconds: Double = 30) async throws -> Int {
        var handled = 0
        while true {
            let now = clock()
            let batch = try await store.claimPending(
                limit: batchSize, owner: owner, now: now, leaseUntil: now.addingTimeInterval(leaseSeconds))
            if batch.isEmpty { return handled }
            let verifications = await verifyConcurrently(batch, now: now)
            for row in batch {
                try await process(row, verification: row.id.flatMap { verifications[$0] })
                handled += 1
            }
        }
    }

    /// Processes one row and records its outcome; `verification` is the row's V2 verification
    /// when it was done ahead (see ``drain(batchSize:leaseSeconds:)``).
    func process(_ row: InboxNotification, verification: V2Verification? = nil) async throws {
        guard let id = row.id else { return }
        let now = clock()
        let changeset: Changeset
        if let app = apps.apps[row.appId] {
            switch row.version {
            case 2: changeset = await processV2(row, id: id, app: app, now: now, verification: verification)
            default: changeset = processV1(row, id: id, app: app, now: now)
            }
        } else {
            changeset = Self.rejected(row, id: id, reason: "unknown_app: no app \(row.appId) is configured", now: now)
        }
        let finished = try await enrich(changeset, app: apps.apps[row.appId], now: now)
        try await store.apply(finished)
        let state = finished.inboxOutcome?.state ?? .pending
        metrics?.notificationProcessed(state: state.rawValue)
        if state == .rejected {
            logger.notice("notification rejected", metadata: [
                "app": "\(row.appId)", "inbox_id": "\(id)", "reason": "\(finished.inboxOutcome?.failureReason ?? "")",
            ])
        }
    }

    static func rejected(_ row: InboxNotification, id: Int64, reason: String, now: Date, metadata: NotificationMetadata? = nil) -> Changeset {
        Changeset(appId: row.appId, at: now, inboxOutcome: InboxOutcome(
            inboxId: id, state: .rejected, failureReason: reason, metadata: metadata, processedAt: now))
    }

    private func processV2(_ row: InboxNotification, id: Int64, app: AppRuntime, now: Date, verification: V2Verification?) async -> Changeset {
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
            notificationUUID: notification.notificationUUID, notificationType: notification.notificationType?.rawValue,
            subtype: notification.subtype?.rawValue, originalTransactionId: chain, signedDate: notification.signedDate,
            environment: notification.data?.environment?.rawValue)
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
            return Changeset(appId: row.appId, at: now, inboxOutcome: InboxOutcome(
                inboxId: id, state: .duplicate, metadata: metadata, processedAt: now))
        }
        var history = PurchaseHistory()
        history.add(notification: notification, transaction: verified.transaction, renewalInfo: verified.renewalInfo)
        let entries = Self.entries(history, appId: row.appId, source: "notificationV2", raw: signedPayload, now: now)
        var links: [CustomerLink] = []
        if let token = verified.transaction?.appAccountToken, let chain {
            links.append(CustomerLink(customerId: "", aliases: [.originalTransactionId(chain), .appAccountToken(token)]))
        }
        let key = notification.notificationUUID.map { "notification:\($0.lowercased())" } ?? "notification:inbox-\(id)"
        let event = EventRecord(
            appId: row.appId, originalTransactionId: chain, type: "notification.processed",
            payload: Self.json(["notificationType": metadata.notificationType, "subtype": metadata.subtype,
                                "notificationUUID": metadata.notificationUUID, "inboxId": "\(id)"]),
            occurredAt: notification.signedDate ?? now, idempotencyKey: key)
        return Changeset(
            appId: row.appId, at: now, links: links, entries: entries, events: [event],
            inboxOutcome: InboxOutcome(inboxId: id, state: .processed, metadata: metadata, processedAt: now))
    }

    private func processV1(_ row: InboxNotification, id: Int64, app: AppRuntime, now: Date) -> Changeset {
        guard let notification = try? JSONDecoder().decode(NotificationV1.self, from: Data(row.body.utf8)) else {
            return Self.rejected(row, id: id, reason: "malformed: the body is not a V1 notification", now: now)
        }
        let metadata = NotificationMetadata(
            notificationType: notification.notificationType?.rawValue, originalTransactionId: notification.originalTransactionId
                ?? notification.unifiedReceipt?.latestReceiptInfo?.first?.originalTransactionId,
            environment: notification.environment?.rawValue)
        guard let secret = app.configuration.sharedSecret else {
            return Self.rejected(row, id: id, reason: "no_shared_secret: the app has no shared secret to check V1 notifications", now: now, metadata: metadata)
        }
        guard let password = notification.password, ConstantTime.equals(password, secret) else {
            return Self.rejected(row, id: id, reason: "invalid_password: the V1 password does not match the shared secret", now: now, metadata: metadata)
        }
        let environment: AppStoreEnvironment? = notification.environment.map { $0 == .production ? .production : .sandbox }
        var history = PurchaseHistory()
        history.add(notificationV1: notification)
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let reason = filter.check(bundleId: notification.bid, environment: environment, productIds: history.purchases.values.map(\.productId)) {
            return Self.rejected(row, id: id, reason: reason, now: now, metadata: metadata)
        }
        let entries = Self.entries(history, appId: row.appId, source: "notificationV1", raw: row.body, now: now)
        let event = EventRecord(
            appId: row.appId, originalTransactionId: metadata.originalTransactionId, type: "notification.processed",
            payload: Self.json(["notificationType": metadata.notificationType, "version": "1", "inboxId": "\(id)"]),
            occurredAt: now, idempotencyKey: "notification:\(row.idempotencyKey)")
        return Changeset(
            appId: row.appId, at: now, entries: entries, events: [event],
            inboxOutcome: InboxOutcome(inboxId: id, state: .processed, metadata: metadata, processedAt: now))
    }

    /// Ledger entries for every fact of a history.
    static func entries(_ history: PurchaseHistory, appId: String, customerId: String? = nil, source: String, raw: String?, now: Date) -> [LedgerEntry] {
        history.purchases.values.sorted { $0.transactionId < $1.transactionId }.map {
            LedgerEntry(appId: appId, fact: .purchase($0), customerId: customerId, source: source, raw: raw, recordedAt: now)
        } + history.renewals.values.sorted { $0.originalTransactionId < $1.originalTransactionId }.map {
            LedgerEntry(appId: appId, fact: .renewal($0), customerId: customerId, source: source, raw: raw, recordedAt: now)
        }
    }

    static func json(_ fields: [String: String?]) -> String {
        let present = fields.compactMapValues { $0 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(present)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
