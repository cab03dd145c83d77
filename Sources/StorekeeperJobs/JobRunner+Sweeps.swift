import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

extension JobRunner {
    /// Plans a look for every chain of the ledger that has none pending (new chains, chains
    /// whose last look found nothing to plan). After the first plan only chains with facts
    /// recorded since the previous plan (with one period of overlap) are considered: a chain
    /// whose facts have not changed keeps the verdict it had, so planning does not grow with
    /// the number of dormant chains. Chains are planned in groups of ``planningGroup``.
    package func planLooks(app: AppRuntime) async throws {
        let now = clock()
        let pending = Set(
            try await store.pendingJobKeys(appId: app.id, kind: JobKind.refreshSubscription.rawValue)
                .compactMap(JobRecord.refreshedChain(key:)))
        let previous = try await store.latestJob(appId: app.id, kind: JobKind.planLooks.rawValue, state: .done)
        let chains =
            if let previous {
                try await store.knownChains(appId: app.id, recordedSince: previous.runAt.addingTimeInterval(-configuration.planSeconds))
            } else {
                try await store.knownChains(appId: app.id)
            }
        // In groups: one read for a group's ledgers, one write for its jobs (a first run over a
        // million chains would otherwise be a million reads and a million commits).
        let unplanned = chains.filter { !pending.contains($0) }
        for first in stride(from: 0, to: unplanned.count, by: Self.planningGroup) {
            let group = Array(unplanned[first..<min(first + Self.planningGroup, unplanned.count)])
            let ledgers = try await store.ledgers(appId: app.id, originalTransactionIds: group)
            var changeset = Changeset(appId: app.id, at: now)
            for (position, chain) in group.enumerated() {
                if let job = nextLook(chain: chain, entries: ledgers[chain] ?? [], app: app, now: now) { changeset.jobs.append(job) }
                // Long work leaves the threads to requests now and then.
                if position % 100 == 99 { await Task.yield() }
            }
            if !changeset.jobs.isEmpty { try await store.apply(changeset) }
        }
    }

    /// How many chains ``planLooks(app:)`` reads and plans at a time.
    package static let planningGroup = 1_000

    /// Replays through the inbox every notification Apple failed to deliver in the window
    /// (`onlyFailures`); the inbox and its processor drop what was already received.
    package func sweepNotifications(_ job: JobRecord, app: AppRuntime, client: any AppStoreServerAPIClientProtocol) async throws {
        let window = try Self.decode(SweepPayload.self, job)
        let replayed = try await replayHistory(NotificationHistoryRequest(window: window, onlyFailures: true), app: app, client: client)
        if replayed > 0 {
            logger.info("replayed missed notifications", metadata: ["app": "\(app.id)", "count": "\(replayed)"])
            await inboxWritten()
        }
    }

    /// Replays every notification of the pages Apple's history returns for `request` through
    /// the inbox; returns how many.
    package func replayHistory(
        _ request: NotificationHistoryRequest, app: AppRuntime, client: any AppStoreServerAPIClientProtocol
    ) async throws -> Int {
        var token: String?
        var replayed = 0
        repeat {
            let page = try await client.getNotificationHistory(paginationToken: token, request: request)
            for item in page.notificationHistory ?? [] {
                guard let signed = item.signedPayload else { continue }
                try await replay(signedPayload: signed, app: app)
                replayed += 1
            }
            token = page.hasMore == true ? page.paginationToken : nil
        } while token != nil
        return replayed
    }

    /// Stores a notification from Apple's history in the inbox as if Apple had delivered it.
    package func replay(signedPayload: String, app: AppRuntime) async throws {
        let now = clock()
        let body = JSONEncoder.payload(["signedPayload": signedPayload])
        var uuid: String?
        var metadata: NotificationMetadata?
        if case .valid(let notification) = await app.verify(signedOnly: true, { await $0.verifyAndDecodeNotification(signedPayload, now: now) }) {
            uuid = notification.notificationUUID
            metadata = .of(notification, chain: NotificationAdmission.chain(named: notification))
        }
        let row = InboxNotification(
            appId: app.id, idempotencyKey: InboxNotification.idempotencyKey(version: .v2, notificationUUID: uuid, body: Data(body.utf8)),
            version: .v2, body: body, headers: ["Source": "notification-history"], receivedAt: now, metadata: metadata)
        _ = try await store.receive(row)
    }

    /// The notification types a refund sweep replays: every change Apple makes to a purchase
    /// after the fact, on its own.
    package static let refundTypes: [NotificationTypeV2] = [.refund, .revoke, .refundReversed]

    /// Replays the window's refunds, revocations and reversed refunds from the notification
    /// history, delivered or not, one history query per type (not one refund lookup per chain).
    /// The hourly sweep already replays the ones Apple failed to deliver; this catches the rest
    /// of what a gap in those sweeps could hide, at a cost that does not grow with the chains.
    package func sweepRefunds(_ job: JobRecord, app: AppRuntime, client: any AppStoreServerAPIClientProtocol) async throws {
        // Refund sweeps queued by an earlier version carry no window: the period before them.
        let window =
            (try? JSONDecoder().decode(SweepPayload.self, from: Data(job.payload.utf8)))
            ?? SweepPayload(
                startMillis: job.runAt.millisecondsSince1970 - Int64(configuration.refundSweepSeconds * 1000),
                endMillis: job.runAt.millisecondsSince1970)
        var replayed = 0
        for type in Self.refundTypes {
            replayed += try await replayHistory(NotificationHistoryRequest(window: window, notificationType: type), app: app, client: client)
        }
        if replayed > 0 { await inboxWritten() }
    }

    /// Records the refunded transactions Apple lists for a chain's customer (``JobKind/refundCheck``
    /// jobs queued by an earlier version).
    package func checkRefunds(_ job: JobRecord, app: AppRuntime, client: any AppStoreServerAPIClientProtocol) async throws {
        let chain = try Self.decode(RefreshPayload.self, job).originalTransactionId
        var revision: String?
        var signed: [String] = []
        repeat {
            let page: RefundHistoryResponse
            do {
                page = try await client.getRefundHistory(transactionId: chain, revision: revision)
            } catch let error as AppStoreServerAPIError where error.httpStatus == 404 {
                throw PermanentFailure(description: "Apple does not know \(chain): \(error)")
            }
            signed += page.signedTransactions ?? []
            revision = page.hasMore == true ? page.revision : nil
        } while revision != nil
        try await record(app: app, signedTransactions: signed, signedRenewals: [], source: .appStoreServerAPI, now: clock())
    }
}

extension NotificationHistoryRequest {
    /// A request for the notifications first sent in `window`.
    package init(window: SweepPayload, notificationType: NotificationTypeV2? = nil, onlyFailures: Bool? = nil) {
        self.init(
            startDate: Date(millisecondsSince1970: window.startMillis), endDate: Date(millisecondsSince1970: window.endMillis),
            notificationType: notificationType, onlyFailures: onlyFailures)
    }
}
