import Foundation
import SubscriptionAnalytics

/// The whole store in memory, for tests and throwaway runs: the same contract as ``SQLStore``
/// (the contract suite runs on both), with nothing on disk and nothing kept after the process.
///
/// An actor: each call runs alone, so a changeset that fails leaves nothing behind (it is
/// checked whole before anything is written). Instants are kept to the millisecond, as the
/// database keeps them.
public actor InMemoryStore: StorekeeperStorage {
    public nonisolated let backendName = "memory"
    public nonisolated var writeFailure: String? { nil }

    /// A row's key within an app, compared and hashed as exact bytes, as SQL compares text
    /// (``CustomerId``): `String`'s own `==` and hash follow canonical equivalence.
    struct AppKey: Hashable {
        var appId: String
        var key: String

        static func == (a: AppKey, b: AppKey) -> Bool {
            a.appId.utf8.elementsEqual(b.appId.utf8) && a.key.utf8.elementsEqual(b.key.utf8)
        }

        func hash(into hasher: inout Hasher) {
            for byte in appId.utf8 { hasher.combine(byte) }
            hasher.combine(0xFF as UInt8)  // never a byte of UTF-8: the two parts stay apart
            for byte in key.utf8 { hasher.combine(byte) }
        }
    }

    struct InboxRow {
        var notification: InboxNotification
        var leaseOwner: String?
        var leaseUntil: Date?
    }

    var version = 0
    var appRecords: [String: AppRecord] = [:]
    var customers: Set<AppKey> = []
    /// Customers in creation order (``recentCustomers(appId:limit:)``).
    var customerOrder: [AppKey] = []
    var sessions: [String: DashboardSession] = [:]
    struct DeliveryRow {
        var delivery: OutboxDelivery
        var leaseOwner: String?
        var leaseUntil: Date?
    }
    var deliveryRows: [Int64: DeliveryRow] = [:]
    var deliveryAttempts: [Int64: [DeliveryAttempt]] = [:]
    var disabled: [AppKey: String] = [:]
    var problemRows: [Problem] = []
    var webhookRows: [AppKey: StoredWebhook] = [:]
    var serverKeys: [String: String] = [:]
    var offeringRows: [String: [OfferingVersion]] = [:]
    var enrolmentRows: [AppKey: ExperimentEnrolment] = [:]
    var aliasOwners: [AppKey: String] = [:]
    /// Customers' attributes, by app and customer id, then key.
    var attributeRows: [AppKey: [String: CustomerAttribute]] = [:]
    /// Each customer's current app account token, by app and customer id.
    var currentAppAccountTokens: [AppKey: String] = [:]
    var ledgerRows: [LedgerEntry] = []
    var dashboardUserRecords: [String: DashboardUser] = [:]
    var ledgerKeys: Set<AppKey> = []
    var eventRows: [EventRecord] = []
    var eventKeys: Set<AppKey> = []
    var auditRows: [AuditEntry] = []
    /// Where each table's retention stopped (the last id it passed).
    var retentionMarks: [RetentionTable: Int64] = [:]
    /// Each chain's event horizon (``RecordedEvents/horizon``), by app and chain.
    var eventHorizons: [AppKey: Date] = [:]
    var inbox: [Int64: InboxRow] = [:]
    var inboxKeys: [AppKey: Int64] = [:]
    var jobRows: [Int64: JobRecord] = [:]
    var jobKeys: [AppKey: Int64] = [:]
    /// Chain figures by app and environment.
    var figureRowSets: [AppKey: FigureRowsInMemory] = [:]
    /// The customer of each chain with figures, by app and environment.
    var figureOwners: [AppKey: [String: String]] = [:]
    /// How far each app's figures are built, by app and environment.
    var figureStates: [AppKey: FigureState] = [:]
    var lastId: Int64 = 0

    public init() {}

    func nextId() -> Int64 {
        lastId += 1
        return lastId
    }

    static func aliasKey(_ alias: CustomerAlias, appId: String) -> AppKey {
        AppKey(appId: appId, key: alias.kind.rawValue + "\u{1F}" + alias.value)
    }

    // MARK: - Schema and health

    @discardableResult
    public func migrate(scope: MigrationScope) async throws -> [Int] {
        let latest = SchemaMigrations.latestVersion
        defer { version = latest }
        return version < latest ? Array((version + 1)...latest) : []
    }

    public func schemaVersion() async throws -> Int { version }
    public func ping() async throws {}

    public func checkDatabase() async throws -> [String] { [] }

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
        if let stored = dashboardUserRecords[user.email], stored.passwordHash != user.passwordHash {
            sessions = sessions.filter { $0.value.email != user.email }
        }
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
        aliasOwners.filter { $0.key.appId == appId && CustomerId.same($0.value, customerId) }.keys.map { key in
            let parts = key.key.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
            return CustomerAlias(kind: CustomerAlias.Kind(rawValue: String(parts[0])), value: String(parts[1]))
        }.sorted { ($0.kind.rawValue, $0.value) < ($1.kind.rawValue, $1.value) }
    }

    func chains(of customerId: String, appId: String) -> Set<String> {
        Set(
            aliasOwners.compactMap { key, owner in
                guard key.appId == appId, CustomerId.same(owner, customerId) else { return nil }
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
    func check(_ changeset: Changeset, owners: inout [AppKey: String], offerings: inout [String: Int]) throws -> [AppKey: String] {
        let appId = changeset.appId
        var newOwners: [AppKey: String] = [:]
        for link in changeset.links {
            for alias in link.aliases {
                let key = Self.aliasKey(alias, appId: appId)
                let owner = aliasOwners[key] ?? owners[key] ?? link.customerId
                guard CustomerId.same(owner, link.customerId) else {
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

    func write(_ changeset: Changeset, newOwners: [AppKey: String]) -> ChangesetResult {
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
        writeFigures(changeset.figures, appId: appId)
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

    static func ledgerOrder(_ a: LedgerEntry, _ b: LedgerEntry) -> Bool {
        (a.fact.signedDate ?? .distantPast, a.id ?? 0) < (b.fact.signedDate ?? .distantPast, b.id ?? 0)
    }

    public func ledger(appId: String, customerId: String) async throws -> [LedgerEntry] {
        let chains = chains(of: customerId, appId: appId)
        return ledgerRows.filter { row in
            row.appId == appId && (CustomerId.same(row.customerId, customerId) || row.fact.originalTransactionId.map(chains.contains) == true)
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

    public func ledgerCount(appId: String, limit: Int) async throws -> Int {
        min(max(0, limit), ledgerRows.lazy.filter { $0.appId == appId }.count)
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
                event.appId == appId && (CustomerId.same(event.customerId, customerId) || event.originalTransactionId.map(chains.contains) == true)
            }.sorted { ($0.occurredAt, $0.id ?? 0) < ($1.occurredAt, $1.id ?? 0) }.prefix(max(0, min(limit, 10_000))))
    }

    public func eventKeys(appId: String, originalTransactionId: String) async throws -> RecordedEvents {
        RecordedEvents(
            keys: Set(eventRows.filter { $0.appId == appId && $0.originalTransactionId == originalTransactionId }.map(\.idempotencyKey)),
            horizon: eventHorizons[AppKey(appId: appId, key: originalTransactionId)])
    }

    public func eventKeys(appId: String, originalTransactionIds: [String]) async throws -> [String: RecordedEvents] {
        let chains = Set(originalTransactionIds)
        var recorded: [String: RecordedEvents] = [:]
        for row in eventRows where row.appId == appId {
            guard let chain = row.originalTransactionId, chains.contains(chain) else { continue }
            recorded[chain, default: []].keys.insert(row.idempotencyKey)
        }
        for chain in chains {
            if let horizon = eventHorizons[AppKey(appId: appId, key: chain)] { recorded[chain, default: []].horizon = horizon }
        }
        return recorded
    }
}

extension Date {
    /// The instant as the store keeps it: whole milliseconds.
    var toMilliseconds: Date { Date(millisecondsSince1970: millisecondsSince1970) }
}
