import Foundation

extension InMemoryStore {
    // MARK: - Inbox

    public func receive(_ notification: InboxNotification) async throws -> InboxInsertion {
        let key = AppKey(appId: notification.appId, key: notification.idempotencyKey)
        if let id = inboxKeys[key] { return .duplicate(id: id) }
        var row = notification
        row.id = nextId()
        row.state = .pending
        row.attempts = 0
        row.failureReason = nil
        row.metadata = notification.metadata?.originalTransactionId.map { NotificationMetadata(originalTransactionId: $0) }
        row.receivedAt = notification.receivedAt.toMilliseconds
        inbox[row.id!] = InboxRow(notification: row)
        inboxKeys[key] = row.id
        return .inserted(id: row.id!)
    }

    public func claimPending(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [InboxNotification] {
        let limit = max(1, limit)
        let pending = inbox.values.filter { $0.notification.state == .pending }
        var firstOfChain: [AppKey: Int64] = [:]
        for row in pending {
            guard let chain = SQLStore.queueChain(row.notification.version, row.notification.metadata?.originalTransactionId),
                let id = row.notification.id
            else { continue }
            let key = AppKey(appId: row.notification.appId, key: chain)
            firstOfChain[key] = min(firstOfChain[key] ?? id, id)
        }
        let claimable = pending.filter { row in
            guard row.leaseUntil.map({ $0 < now }) ?? true else { return false }
            guard let chain = SQLStore.queueChain(row.notification.version, row.notification.metadata?.originalTransactionId) else { return true }
            return firstOfChain[AppKey(appId: row.notification.appId, key: chain)] == row.notification.id
        }
        let queues = Dictionary(grouping: claimable, by: \.notification.appId).sorted { $0.key < $1.key }.map { _, rows in
            rows.compactMap(\.notification.id).sorted().prefix(limit).map { $0 }
        }
        return SQLStore.takeInTurn(queues, limit: limit).sorted().compactMap { id in
            guard var row = inbox[id] else { return nil }
            row.leaseOwner = owner
            row.leaseUntil = leaseUntil.toMilliseconds
            row.notification.attempts += 1
            inbox[id] = row
            return row.notification
        }
    }

    public func releaseLeases() async throws {
        for (id, row) in inbox where row.notification.state == .pending {
            inbox[id]?.leaseOwner = nil
            inbox[id]?.leaseUntil = nil
        }
    }

    public func isProcessed(appId: String, notificationUUID: String, exceptId: Int64) async throws -> Bool {
        let uuid = notificationUUID.lowercased()
        return inbox.values.contains { row in
            row.notification.appId == appId && row.notification.id != exceptId && row.notification.state == .processed
                && row.notification.metadata?.notificationUUID == uuid
        }
    }

    public func processedNotifications(appId: String, notificationUUIDs: [String]) async throws -> [String: Set<Int64>] {
        let uuids = Set(notificationUUIDs.map { $0.lowercased() })
        var processed: [String: Set<Int64>] = [:]
        for row in inbox.values where row.notification.appId == appId && row.notification.state == .processed {
            guard let uuid = row.notification.metadata?.notificationUUID, uuids.contains(uuid), let id = row.notification.id else { continue }
            processed[uuid, default: []].insert(id)
        }
        return processed
    }

    public func notifications(appId: String, filter: NotificationFilter) async throws -> [InboxNotification] {
        let rows = inbox.values.map(\.notification).filter { row in
            row.appId == appId
                && (filter.originalTransactionId.map { $0 == row.metadata?.originalTransactionId } ?? true)
                && (filter.notificationType.map { $0 == row.metadata?.notificationType } ?? true)
                && (filter.state.map { $0 == row.state } ?? true)
                && (filter.subtype.map { $0 == row.metadata?.subtype } ?? true)
                && (filter.receivedFrom.map { row.receivedAt >= $0 } ?? true)
                && (filter.receivedBefore.map { row.receivedAt < $0 } ?? true)
        }
        return rows.sorted { ($0.id ?? 0) > ($1.id ?? 0) }.prefix(max(0, min(filter.limit, 1000))).map { row in
            var listed = row
            if !filter.includesBodies { listed.body = "" }
            return listed
        }
    }

    public func notification(id: Int64) async throws -> InboxNotification? {
        inbox[id]?.notification
    }

    public func requeueFailedNotification(appId: String, id: Int64) async throws {
        guard var row = inbox[id], row.notification.appId == appId, row.notification.state == .failed else { return }
        row.notification.state = .pending
        row.notification.attempts = 0
        row.leaseOwner = nil
        row.leaseUntil = nil
        inbox[id] = row
    }

    public func removeStoredV1Passwords() async throws -> Int {
        var changed = 0
        for (id, row) in inbox where row.notification.version == .v1 && row.notification.body.contains("\"password\"") {
            inbox[id]?.notification.body = SQLStore.removingPassword(from: row.notification.body)
            changed += 1
        }
        for index in ledgerRows.indices where ledgerRows[index].source == .notificationV1 {
            guard let raw = ledgerRows[index].raw, raw.contains("\"password\"") else { continue }
            ledgerRows[index].raw = SQLStore.removingPassword(from: raw)
            changed += 1
        }
        return changed
    }

    public func pendingCount() async throws -> Int {
        inbox.values.filter { $0.notification.state == .pending }.count
    }

    public func oldestPendingReceivedAt() async throws -> Date? {
        inbox.values.map(\.notification).filter { $0.state == .pending }.min { ($0.id ?? 0) < ($1.id ?? 0) }?.receivedAt
    }

    public func lastReceivedAt(appId: String) async throws -> Date? {
        inbox.values.map(\.notification).filter { $0.appId == appId }.map(\.receivedAt).max()
    }

    public func purgeNotifications(states: Set<InboxState>, receivedBefore cutoff: Date, limit: Int) async throws -> Int {
        let doomed = inbox.values.map(\.notification)
            .filter { states.contains($0.state) && $0.receivedAt < cutoff }
            .compactMap(\.id).sorted().prefix(max(1, limit))
        for id in doomed {
            if let row = inbox.removeValue(forKey: id) {
                inboxKeys.removeValue(forKey: AppKey(appId: row.notification.appId, key: row.notification.idempotencyKey))
            }
        }
        return doomed.count
    }

    // MARK: - Jobs

    @discardableResult
    public func enqueue(_ job: JobRecord) async throws -> Int64 {
        insertJob(job)
    }

    func insertJob(_ job: JobRecord) -> Int64 {
        let key = AppKey(appId: job.appId, key: job.idempotencyKey)
        if let id = jobKeys[key] { return id }
        var row = job
        let id = nextId()
        row.id = id
        row.state = .pending
        row.attempts = 0
        row.lastError = nil
        row.leaseOwner = nil
        row.leaseUntil = nil
        row.runAt = job.runAt.toMilliseconds
        jobRows[id] = row
        jobKeys[key] = id
        return id
    }

    static func jobOrder(_ a: JobRecord, _ b: JobRecord) -> Bool {
        (a.runAt, a.id ?? 0) < (b.runAt, b.id ?? 0)
    }

    public func leaseJobs(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [JobRecord] {
        let due = jobRows.values.filter { $0.state == .pending && $0.runAt <= now && ($0.leaseUntil.map { $0 < now } ?? true) }
        return due.sorted(by: Self.jobOrder).prefix(max(1, limit)).compactMap { job in
            guard let id = job.id else { return nil }
            jobRows[id]?.leaseOwner = owner
            jobRows[id]?.leaseUntil = leaseUntil.toMilliseconds
            jobRows[id]?.attempts += 1
            return jobRows[id]
        }
    }

    public func completeJob(id: Int64, owner: String) async throws {
        guard jobRows[id]?.leaseOwner == owner else { return }
        jobRows[id]?.state = .done
        jobRows[id]?.leaseOwner = nil
        jobRows[id]?.leaseUntil = nil
    }

    public func failJob(id: Int64, owner: String, error: String, retryAt: Date?) async throws {
        guard var job = jobRows[id], job.leaseOwner == owner else { return }
        job.state = retryAt == nil ? .failed : .pending
        job.lastError = error
        job.leaseOwner = nil
        job.leaseUntil = nil
        if let retryAt { job.runAt = retryAt.toMilliseconds }
        jobRows[id] = job
    }

    public func job(id: Int64) async throws -> JobRecord? {
        jobRows[id]
    }

    // MARK: - Reconciliation

    public func knownChains(appId: String) async throws -> [String] {
        Set(ledgerRows.filter { $0.appId == appId }.compactMap(\.fact.originalTransactionId)).sorted()
    }

    public func knownChains(appId: String, recordedSince date: Date) async throws -> [String] {
        Set(ledgerRows.filter { $0.appId == appId && $0.recordedAt >= date }.compactMap(\.fact.originalTransactionId)).sorted()
    }

    public func hasChains(appId: String, recordedSince date: Date) async throws -> Bool {
        ledgerRows.contains { $0.appId == appId && $0.recordedAt >= date && $0.fact.originalTransactionId != nil }
    }

    public func latestJob(appId: String, kind: String, state: JobState) async throws -> JobRecord? {
        jobRows.values.filter { $0.appId == appId && $0.kind == kind && $0.state == state }.max(by: Self.jobOrder)
    }

    public func pendingJobKeys(appId: String, kind: String) async throws -> Set<String> {
        Set(jobRows.values.filter { $0.appId == appId && $0.kind == kind && $0.state == .pending }.map(\.idempotencyKey))
    }

    public func jobs(appId: String, kind: String, limit: Int) async throws -> [JobRecord] {
        Array(jobRows.values.filter { $0.appId == appId && $0.kind == kind }.sorted(by: Self.jobOrder).prefix(max(1, limit)))
    }

    public func nextWorkDate() async throws -> Date? {
        let job = jobRows.values.filter { $0.state == .pending }.map(\.runAt).min()
        let delivery = deliveryRows.values.filter { $0.delivery.state == .pending }.map(\.delivery.nextAttemptAt).min()
        return [job, delivery].compactMap { $0 }.min()
    }
}
