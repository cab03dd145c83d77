import Foundation

/// The whole store in memory, for tests and throwaway runs: the same contract as ``SQLStore``
/// (the contract suite runs on both), with nothing on disk and nothing kept after the process.
///
/// An actor: each call runs alone, so a changeset that fails leaves nothing behind (it is
/// checked whole before anything is written). Instants are kept to the millisecond, as the
/// database keeps them.
public actor InMemoryStore: StorekeeperStorage {
    public nonisolated let backendName = "memory"

    private struct AppKey: Hashable {
        var appId: String
        var key: String
    }

    private struct InboxRow {
        var notification: InboxNotification
        var leaseOwner: String?
        var leaseUntil: Date?
    }

    private var version = 0
    private var appRecords: [String: AppRecord] = [:]
    private var customers: Set<AppKey> = []
    /// Customers in creation order (``recentCustomers(appId:limit:)``).
    private var customerOrder: [AppKey] = []
    private var sessions: [String: DashboardSession] = [:]
    private struct DeliveryRow {
        var delivery: OutboxDelivery
        var leaseOwner: String?
        var leaseUntil: Date?
    }
    private var deliveryRows: [Int64: DeliveryRow] = [:]
    private var deliveryAttempts: [Int64: [DeliveryAttempt]] = [:]
    private var disabled: [AppKey: String] = [:]
    private var problemRows: [Problem] = []
    private var webhookRows: [AppKey: StoredWebhook] = [:]
    private var serverKeys: [String: String] = [:]
    private var offeringRows: [String: [OfferingVersion]] = [:]
    private var enrolmentRows: [AppKey: ExperimentEnrolment] = [:]
    private var aliasOwners: [AppKey: String] = [:]
    private var ledgerRows: [LedgerEntry] = []
    private var dashboardUserRecords: [String: DashboardUser] = [:]
    private var ledgerKeys: Set<AppKey> = []
    private var eventRows: [EventRecord] = []
    private var eventKeys: Set<AppKey> = []
    private var auditRows: [AuditEntry] = []
    private var inbox: [Int64: InboxRow] = [:]
    private var inboxKeys: [AppKey: Int64] = [:]
    private var jobRows: [Int64: JobRecord] = [:]
    private var jobKeys: [AppKey: Int64] = [:]
    private var lastId: Int64 = 0

    public init() {}

    private func nextId() -> Int64 {
        lastId += 1
        return lastId
    }

    private static func aliasKey(_ alias: CustomerAlias, appId: String) -> AppKey {
        AppKey(appId: appId, key: alias.kind.rawValue + "\u{1F}" + alias.value)
    }

    // MARK: - Schema and health

    @discardableResult
    public func migrate() async throws -> [Int] {
        let latest = SchemaMigrations.latestVersion
        defer { version = latest }
        return version < latest ? Array((version + 1)...latest) : []
    }

    public func schemaVersion() async throws -> Int { version }
    public func ping() async throws {}

    // MARK: - Apps and customers

    public func offeringVersion(appId: String, version: Int?) async throws -> OfferingVersion? {
        guard let version else { return offeringRows[appId]?.last }
        return offeringRows[appId]?.first { $0.version == version }
    }

    public func offeringVersions(appId: String, limit: Int) async throws -> [OfferingVersion] {
        Array((offeringRows[appId] ?? []).reversed().prefix(max(1, min(limit, 1000))))
    }

    public func enrolment(appId: String, experimentId: String, customerId: String) async throws -> ExperimentEnrolment? {
        enrolmentRows[AppKey(appId: appId, key: experimentId + "\u{0}" + customerId)]
    }

    public func enrolments(appId: String, experimentId: String) async throws -> [ExperimentEnrolment] {
        enrolmentRows.values.filter { $0.appId == appId && $0.experimentId == experimentId }.sorted {
            ($0.enrolledAt, $0.customerId) < ($1.enrolledAt, $1.customerId)
        }
    }

    public func serverKey(name: String, proposed: String, now: Date) async throws -> String {
        if let stored = serverKeys[name] { return stored }
        serverKeys[name] = proposed
        return proposed
    }

    public func saveApp(_ app: AppRecord) async throws {
        var record = app
        if let existing = appRecords[app.id] { record.createdAt = existing.createdAt }
        record.createdAt = record.createdAt.toMilliseconds
        appRecords[app.id] = record
    }

    @discardableResult
    public func saveDashboardUser(_ user: DashboardUser) async throws -> Bool {
        var record = user
        record.createdAt = (dashboardUserRecords[user.email]?.createdAt ?? user.createdAt).toMilliseconds
        record.updatedAt = user.updatedAt.toMilliseconds
        let created = dashboardUserRecords[user.email] == nil
        dashboardUserRecords[user.email] = record
        return created
    }

    public func dashboardUser(email: String) async throws -> DashboardUser? {
        dashboardUserRecords[email.lowercased()]
    }

    public func dashboardUsers() async throws -> [DashboardUser] {
        dashboardUserRecords.values.sorted { $0.email < $1.email }
    }

    public func createDashboardSession(_ session: DashboardSession) async throws {
        sessions = sessions.filter { $0.value.expiresAt > session.createdAt }
        var record = session
        record.createdAt = session.createdAt.toMilliseconds
        record.expiresAt = session.expiresAt.toMilliseconds
        sessions[session.tokenHash] = record
    }

    public func dashboardSession(tokenHash: String, now: Date) async throws -> DashboardSession? {
        sessions[tokenHash].flatMap { $0.expiresAt > now ? $0 : nil }
    }

    public func deleteDashboardSession(tokenHash: String) async throws {
        sessions[tokenHash] = nil
    }

    public func recentCustomers(appId: String, limit: Int) async throws -> [String] {
        Array(customerOrder.lazy.reversed().filter { $0.appId == appId }.prefix(max(0, min(limit, 1000))).map(\.key))
    }

    public func apps() async throws -> [AppRecord] {
        appRecords.values.sorted { $0.id < $1.id }
    }

    public func customerExists(appId: String, customerId: String) async throws -> Bool {
        customers.contains(AppKey(appId: appId, key: customerId))
    }

    public func customer(appId: String, alias: CustomerAlias) async throws -> String? {
        aliasOwners[Self.aliasKey(alias, appId: appId)]
    }

    public func customers(appId: String, aliases: [CustomerAlias]) async throws -> [CustomerAlias: String] {
        var owners: [CustomerAlias: String] = [:]
        for alias in aliases { owners[alias] = aliasOwners[Self.aliasKey(alias, appId: appId)] }
        return owners
    }

    public func aliases(appId: String, customerId: String) async throws -> [CustomerAlias] {
        aliasOwners.filter { $0.key.appId == appId && $0.value == customerId }.keys.map { key in
            let parts = key.key.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
            return CustomerAlias(kind: CustomerAlias.Kind(rawValue: String(parts[0])), value: String(parts[1]))
        }.sorted { ($0.kind.rawValue, $0.value) < ($1.kind.rawValue, $1.value) }
    }

    private func chains(of customerId: String, appId: String) -> Set<String> {
        Set(
            aliasOwners.compactMap { key, owner in
                guard key.appId == appId, owner == customerId else { return nil }
                let prefix = CustomerAlias.Kind.originalTransactionId.rawValue + "\u{1F}"
                return key.key.hasPrefix(prefix) ? String(key.key.dropFirst(prefix.count)) : nil
            })
    }

    // MARK: - Changesets

    @discardableResult
    public func apply(_ changeset: Changeset) async throws -> ChangesetResult {
        try await apply([changeset])[0]
    }

    @discardableResult
    public func apply(_ changesets: [Changeset]) async throws -> [ChangesetResult] {
        // Checked whole before anything is written, so a refused changeset changes nothing.
        var owners: [AppKey: String] = [:]
        var offerings: [String: Int] = [:]
        var checked: [[AppKey: String]] = []
        for changeset in changesets {
            checked.append(try check(changeset, owners: &owners, offerings: &offerings))
        }
        return zip(changesets, checked).map { write($0, newOwners: $1) }
    }

    /// The aliases `changeset` links anew, or why it is refused, given what the changesets
    /// before it in the same batch link (`owners`) and make the offerings' version (`offerings`).
    private func check(_ changeset: Changeset, owners: inout [AppKey: String], offerings: inout [String: Int]) throws -> [AppKey: String] {
        let appId = changeset.appId
        var newOwners: [AppKey: String] = [:]
        for link in changeset.links {
            for alias in link.aliases {
                let key = Self.aliasKey(alias, appId: appId)
                let owner = aliasOwners[key] ?? owners[key] ?? link.customerId
                guard owner == link.customerId else {
                    throw StoreError(code: .aliasConflict, message: "\(alias.kind.rawValue) \(alias.value) belongs to another customer")
                }
                newOwners[key] = owner
                owners[key] = owner
            }
        }
        let currentOfferings = offerings[appId] ?? offeringRows[appId]?.last?.version ?? 0
        if let version = changeset.offeringVersion {
            guard version.expectedVersion == currentOfferings else {
                throw StoreError(
                    code: .versionConflict,
                    message: "the offerings are at version \(currentOfferings), not \(version.expectedVersion): read them again")
            }
            offerings[appId] = currentOfferings + 1
        }
        return newOwners
    }

    private func write(_ changeset: Changeset, newOwners: [AppKey: String]) -> ChangesetResult {
        let appId = changeset.appId
        let currentOfferings = offeringRows[appId]?.last?.version ?? 0
        if let version = changeset.offeringVersion {
            offeringRows[appId, default: []].append(
                OfferingVersion(
                    appId: appId, version: currentOfferings + 1, document: version.document, actor: version.actor, note: version.note,
                    createdAt: changeset.at.toMilliseconds))
        }
        for enrolment in changeset.enrolments {
            let key = AppKey(appId: appId, key: enrolment.experimentId + "\u{0}" + enrolment.customerId)
            if enrolmentRows[key] == nil {
                var row = enrolment
                row.appId = appId
                row.enrolledAt = enrolment.enrolledAt.toMilliseconds
                enrolmentRows[key] = row
            }
        }
        for link in changeset.links where customers.insert(AppKey(appId: appId, key: link.customerId)).inserted {
            customerOrder.append(AppKey(appId: appId, key: link.customerId))
        }
        aliasOwners.merge(newOwners) { existing, _ in existing }
        var newEntries = 0
        for entry in changeset.entries where ledgerKeys.insert(AppKey(appId: appId, key: entry.key)).inserted {
            var row = entry
            row.id = nextId()
            row.appId = appId
            row.recordedAt = entry.recordedAt.toMilliseconds
            ledgerRows.append(row)
            newEntries += 1
        }
        var newEvents = 0
        for event in changeset.events where insertEvent(event, appId: appId, at: changeset.at) {
            newEvents += 1
        }
        for job in changeset.jobs where jobKeys[AppKey(appId: appId, key: job.idempotencyKey)] == nil {
            var row = job
            row.appId = appId
            _ = insertJob(row)
        }
        for entry in changeset.audit {
            var row = entry
            row.id = nextId()
            row.appId = appId
            row.at = entry.at.toMilliseconds
            auditRows.append(row)
        }
        if let outcome = changeset.inboxOutcome, var row = inbox[outcome.inboxId], row.notification.appId == appId {
            row.notification.state = outcome.state
            row.notification.failureReason = outcome.failureReason
            row.notification.metadata =
                outcome.metadata.map { metadata in
                    var stored = metadata
                    stored.notificationUUID = metadata.notificationUUID?.lowercased()
                    stored.signedDate = metadata.signedDate?.toMilliseconds
                    return stored
                } ?? (outcome.state == .pending ? nil : NotificationMetadata())
            row.leaseOwner = nil
            row.leaseUntil = nil
            inbox[outcome.inboxId] = row
        }
        return ChangesetResult(newEntries: newEntries, newEvents: newEvents)
    }

    // MARK: - Ledger, events, audit

    private static func ledgerOrder(_ a: LedgerEntry, _ b: LedgerEntry) -> Bool {
        (a.fact.signedDate ?? .distantPast, a.id ?? 0) < (b.fact.signedDate ?? .distantPast, b.id ?? 0)
    }

    public func ledger(appId: String, customerId: String) async throws -> [LedgerEntry] {
        let chains = chains(of: customerId, appId: appId)
        return ledgerRows.filter { row in
            row.appId == appId && (row.customerId == customerId || row.fact.originalTransactionId.map(chains.contains) == true)
        }.sorted(by: Self.ledgerOrder)
    }

    public func ledgers(appId: String, originalTransactionIds: [String]) async throws -> [String: [LedgerEntry]] {
        var ledgers: [String: [LedgerEntry]] = [:]
        for chain in Set(originalTransactionIds) {
            let entries = try await ledger(appId: appId, originalTransactionId: chain).map { entry in
                var entry = entry
                entry.raw = nil
                return entry
            }
            if !entries.isEmpty { ledgers[chain] = entries }
        }
        return ledgers
    }

    public func ledger(appId: String, originalTransactionId: String) async throws -> [LedgerEntry] {
        let transactions = Set(
            ledgerRows.compactMap { row in
                row.appId == appId && row.fact.originalTransactionId == originalTransactionId ? row.fact.transactionId : nil
            })
        return ledgerRows.filter { row in
            guard row.appId == appId else { return false }
            if row.fact.originalTransactionId == originalTransactionId { return true }
            if case .revocation(let revocation) = row.fact { return transactions.contains(revocation.transactionId) }
            return false
        }.sorted(by: Self.ledgerOrder)
    }

    public func ledger(appId: String, after: Int64, through: Int64) async throws -> [LedgerEntry] {
        ledgerRows.filter { $0.appId == appId && ($0.id ?? 0) > after && ($0.id ?? 0) <= through }
    }

    public func ledgerVersion(appId: String) async throws -> LedgerVersion {
        let rows = ledgerRows.filter { $0.appId == appId }
        return LedgerVersion(count: rows.count, lastId: rows.last?.id ?? 0)
    }

    public func ledger(appId: String) async throws -> [LedgerEntry] {
        ledgerRows.filter { $0.appId == appId }
    }

    public func ledger(appId: String, transactionId: String) async throws -> [LedgerEntry] {
        ledgerRows.filter { $0.appId == appId && $0.fact.transactionId == transactionId }.sorted(by: Self.ledgerOrder)
    }

    public func events(appId: String, customerId: String, limit: Int) async throws -> [EventRecord] {
        let chains = chains(of: customerId, appId: appId)
        return Array(
            eventRows.filter { event in
                event.appId == appId && (event.customerId == customerId || event.originalTransactionId.map(chains.contains) == true)
            }.sorted { ($0.occurredAt, $0.id ?? 0) < ($1.occurredAt, $1.id ?? 0) }.prefix(max(0, min(limit, 10_000))))
    }

    public func eventKeys(appId: String, originalTransactionId: String) async throws -> Set<String> {
        Set(eventRows.filter { $0.appId == appId && $0.originalTransactionId == originalTransactionId }.map(\.idempotencyKey))
    }

    public func eventKeys(appId: String, originalTransactionIds: [String]) async throws -> [String: Set<String>] {
        let chains = Set(originalTransactionIds)
        var keys: [String: Set<String>] = [:]
        for row in eventRows where row.appId == appId {
            guard let chain = row.originalTransactionId, chains.contains(chain) else { continue }
            keys[chain, default: []].insert(row.idempotencyKey)
        }
        return keys
    }

    // MARK: - Outbox

    /// Records an event unless its key is known, with a delivery per destination.
    private func insertEvent(_ event: EventRecord, appId: String, at: Date) -> Bool {
        guard eventKeys.insert(AppKey(appId: appId, key: event.idempotencyKey)).inserted else { return false }
        var row = event
        row.id = nextId()
        row.appId = appId
        row.occurredAt = event.occurredAt.toMilliseconds
        row.destinations = []
        eventRows.append(row)
        for destination in Set(event.destinations).sorted() {
            let id = nextId()
            deliveryRows[id] = DeliveryRow(
                delivery: OutboxDelivery(
                    id: id, appId: appId, destination: destination, state: .pending, attempts: 0, nextAttemptAt: at.toMilliseconds,
                    lastStatus: nil, lastError: nil, deliveredAt: nil, createdAt: at.toMilliseconds, event: row))
        }
        return true
    }

    @discardableResult
    public func saveWebhook(_ webhook: StoredWebhook) async throws -> Bool {
        let key = AppKey(appId: webhook.appId, key: webhook.id)
        var row = webhook
        row.createdAt = (webhookRows[key]?.createdAt ?? webhook.createdAt).toMilliseconds
        row.updatedAt = webhook.updatedAt.toMilliseconds
        let created = webhookRows[key] == nil
        webhookRows[key] = row
        return created
    }

    @discardableResult
    public func deleteWebhook(appId: String, id: String) async throws -> Bool {
        webhookRows.removeValue(forKey: AppKey(appId: appId, key: id)) != nil
    }

    public func storedWebhooks(appId: String?) async throws -> [StoredWebhook] {
        webhookRows.values.filter { appId == nil || $0.appId == appId }.sorted { ($0.appId, $0.id) < ($1.appId, $1.id) }
    }

    // MARK: - Problems

    @discardableResult
    public func openProblem(_ problem: Problem, event: EventRecord?) async throws -> Bool {
        if let index = problemRows.firstIndex(where: { $0.appId == problem.appId && $0.causeKey == problem.causeKey && $0.status == .open }) {
            problemRows[index].occurrences += 1
            return false
        }
        var row = problem
        row.id = nextId()
        row.occurrences = 1
        row.openedAt = problem.openedAt.toMilliseconds
        problemRows.append(row)
        if let event { _ = insertEvent(event, appId: problem.appId, at: problem.openedAt) }
        return true
    }

    @discardableResult
    public func resolveProblem(
        appId: String, causeKey: String, at: Date, by: String, event: @Sendable (Problem) -> EventRecord?
    ) async throws -> Problem? {
        resolve(at: at, by: by, event: event) { $0.appId == appId && $0.causeKey == causeKey }
    }

    public func resolveProblem(appId: String, id: Int64, at: Date, by: String, event: @Sendable (Problem) -> EventRecord?) async throws -> Problem? {
        resolve(at: at, by: by, event: event) { $0.appId == appId && $0.id == id }
    }

    private func resolve(at: Date, by: String, event: @Sendable (Problem) -> EventRecord?, where matches: (Problem) -> Bool) -> Problem? {
        guard let index = problemRows.firstIndex(where: { $0.status == .open && matches($0) }) else { return nil }
        problemRows[index].status = .resolved
        problemRows[index].resolvedAt = at.toMilliseconds
        problemRows[index].resolvedBy = by
        let problem = problemRows[index]
        if let record = event(problem) { _ = insertEvent(record, appId: problem.appId, at: at) }
        return problem
    }

    public func problems(appId: String, status: ProblemStatus?, limit: Int) async throws -> [Problem] {
        Array(problemRows.filter { $0.appId == appId && (status == nil || $0.status == status) }.reversed().prefix(max(0, min(limit, 1000))))
    }

    public func leaseDeliveries(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [OutboxDelivery] {
        let due = deliveryRows.values.filter { row in
            row.delivery.state == .pending && row.delivery.nextAttemptAt <= now && (row.leaseUntil.map { $0 < now } ?? true)
                && disabled[AppKey(appId: row.delivery.appId, key: row.delivery.destination)] == nil
        }.sorted { ($0.delivery.nextAttemptAt, $0.delivery.id) < ($1.delivery.nextAttemptAt, $1.delivery.id) }.prefix(max(1, limit))
        return due.map { row in
            var leased = row
            leased.leaseOwner = owner
            leased.leaseUntil = leaseUntil.toMilliseconds
            leased.delivery.attempts += 1
            deliveryRows[row.delivery.id] = leased
            return leased.delivery
        }
    }

    public func releaseDeliveryLeases() async throws {
        for (id, row) in deliveryRows where row.leaseOwner != nil {
            deliveryRows[id]?.leaseOwner = nil
            deliveryRows[id]?.leaseUntil = nil
        }
    }

    public func finishDelivery(id: Int64, owner: String, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws {
        guard var row = deliveryRows[id], row.leaseOwner == owner else { return }
        switch outcome {
        case .delivered:
            row.delivery.state = .delivered
            row.delivery.deliveredAt = attempt.at.toMilliseconds
        case .retry(let date):
            row.delivery.state = .pending
            row.delivery.nextAttemptAt = date.toMilliseconds
        case .dead:
            row.delivery.state = .dead
        }
        row.delivery.lastStatus = attempt.status
        row.delivery.lastError = attempt.error
        row.leaseOwner = nil
        row.leaseUntil = nil
        deliveryRows[id] = row
        var stored = attempt
        stored.at = attempt.at.toMilliseconds
        deliveryAttempts[id, default: []].append(stored)
    }

    public func deliveries(appId: String, destination: String, state: DeliveryState?, limit: Int) async throws -> [OutboxDelivery] {
        let matching = deliveryRows.values.map(\.delivery).filter { delivery in
            delivery.appId == appId && delivery.destination == destination && (state == nil || delivery.state == state)
        }
        return Array(matching.sorted { $0.id > $1.id }.prefix(max(0, min(limit, 1000))))
    }

    public func delivery(appId: String, id: Int64) async throws -> OutboxDelivery? {
        deliveryRows[id].flatMap { $0.delivery.appId == appId ? $0.delivery : nil }
    }

    public func attempts(deliveryId: Int64) async throws -> [DeliveryAttempt] {
        deliveryAttempts[deliveryId] ?? []
    }

    public func replayDeliveries(appId: String, destination: String, id: Int64?, now: Date) async throws -> Int {
        var count = 0
        for (key, row) in deliveryRows
        where row.delivery.appId == appId && row.delivery.destination == destination && row.delivery.state == .dead && (id.map { $0 == key } ?? true)
        {
            var replayed = row
            replayed.delivery.state = .pending
            replayed.delivery.attempts = 0
            replayed.delivery.nextAttemptAt = now.toMilliseconds
            replayed.leaseOwner = nil
            replayed.leaseUntil = nil
            deliveryRows[key] = replayed
            count += 1
        }
        return count
    }

    public func disableDestination(appId: String, destination: String, reason: String, at: Date) async throws {
        let key = AppKey(appId: appId, key: destination)
        if disabled[key] == nil { disabled[key] = reason }
    }

    public func enableDestination(appId: String, destination: String) async throws {
        disabled[AppKey(appId: appId, key: destination)] = nil
    }

    public func disabledDestinations(appId: String) async throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: disabled.filter { $0.key.appId == appId }.map { ($0.key.key, $0.value) })
    }

    public func deliveryCounts(appId: String) async throws -> [String: [DeliveryState: Int]] {
        var result: [String: [DeliveryState: Int]] = [:]
        for row in deliveryRows.values where row.delivery.appId == appId {
            result[row.delivery.destination, default: [:]][row.delivery.state, default: 0] += 1
        }
        return result
    }

    public func auditEntries(appId: String, limit: Int) async throws -> [AuditEntry] {
        Array(auditRows.filter { $0.appId == appId }.reversed().prefix(max(0, min(limit, 10_000))))
    }

    public func auditEntries(appId: String, customerId: String, limit: Int) async throws -> [AuditEntry] {
        Array(auditRows.filter { $0.appId == appId && $0.customerId == customerId }.reversed().prefix(max(0, min(limit, 10_000))))
    }

    // MARK: - Inbox

    public func receive(_ notification: InboxNotification) async throws -> InboxInsertion {
        let key = AppKey(appId: notification.appId, key: notification.idempotencyKey)
        if let id = inboxKeys[key] { return .duplicate(id: id) }
        var row = notification
        row.id = nextId()
        row.state = .pending
        row.attempts = 0
        row.failureReason = nil
        row.metadata = nil
        row.receivedAt = notification.receivedAt.toMilliseconds
        inbox[row.id!] = InboxRow(notification: row)
        inboxKeys[key] = row.id
        return .inserted(id: row.id!)
    }

    public func claimPending(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [InboxNotification] {
        let limit = max(1, limit)
        let claimable = inbox.values.filter { $0.notification.state == .pending && ($0.leaseUntil.map { $0 < now } ?? true) }
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

    private func insertJob(_ job: JobRecord) -> Int64 {
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

    private static func jobOrder(_ a: JobRecord, _ b: JobRecord) -> Bool {
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

    public func latestJob(appId: String, kind: String, state: JobState) async throws -> JobRecord? {
        jobRows.values.filter { $0.appId == appId && $0.kind == kind && $0.state == state }.max(by: Self.jobOrder)
    }

    public func pendingJobKeys(appId: String, kind: String) async throws -> Set<String> {
        Set(jobRows.values.filter { $0.appId == appId && $0.kind == kind && $0.state == .pending }.map(\.idempotencyKey))
    }

    public func jobs(appId: String, kind: String, limit: Int) async throws -> [JobRecord] {
        Array(jobRows.values.filter { $0.appId == appId && $0.kind == kind }.sorted(by: Self.jobOrder).prefix(max(1, limit)))
    }
}

extension Date {
    /// The instant as the store keeps it: whole milliseconds.
    var toMilliseconds: Date { Date(millisecondsSince1970: millisecondsSince1970) }
}
