import Foundation
import SubscriptionAnalytics

/// Everything the server stores, behind one value: what `buildApplication` takes.
public protocol StorekeeperStorage: AppRepository, CustomerRepository, LedgerRepository, NotificationInbox, EventLog,
    JobQueue, AuditLog, ReconciliationQueries, DashboardUserRepository, EventOutbox, ProblemRegistry, ServerKeyStore,
    OfferingStore, AppAccountTokenRegistry, FigureStore, RetentionStore, CustomerAttributeStore
{
    /// Which backend this is (`sqlite`, `postgresql`, `memory`), for logs and `/health`.
    var backendName: String { get }
    /// Why the database refuses writes now (SQLite's disk full), if it does: for `/health`.
    var writeFailure: String? { get }
    /// Brings the schema up to date (with ``MigrationScope/expandOnly``, only the steps that
    /// add); returns the versions applied now.
    @discardableResult
    func migrate(scope: MigrationScope) async throws -> [Int]
    /// The schema version in the database (0 when empty).
    func schemaVersion() async throws -> Int
    /// A cheap round trip, for `/health`.
    func ping() async throws
    /// Checks before serving that the database can hold the store's work (throws
    /// ``StoreError/Code/unsupportedDatabase`` when it cannot); returns what is worth a warning.
    func checkDatabase() async throws -> [String]
}

extension StorekeeperStorage {
    /// Applies every missing step.
    @discardableResult
    public func migrate() async throws -> [Int] { try await migrate(scope: .all) }
}

/// The steps a migration applies (docs/server.md, "Upgrades without downtime").
public enum MigrationScope: String, Sendable, Hashable, Codable {
    /// Every missing step.
    case all
    /// Only the steps that add (tables, columns, indexes): a version still running beside the
    /// new one keeps everything it reads. The steps that remove wait for a full migration.
    case expandOnly
}

/// The figures maintained as facts arrive (docs/read-side.md): written with changesets
/// (``Changeset/figures``), read as sums in proportion to what is asked.
public protocol FigureStore: Sendable {
    /// The sums of `appId`'s chain figures in `environment`, by the days of `calendar`.
    func figureSums(appId: String, environment: String, calendar: FigureCalendar) async throws -> any FigureSums
    /// How far the figures of `appId` in `environment` are built, and with which settings.
    func figureState(appId: String, environment: String) async throws -> FigureState?
    /// Removes every figure of `appId` in `environment` and starts a build with `settings`, at once.
    func resetFigures(appId: String, environment: String, settings: String) async throws
    /// Records a build's progress: the last chain built, or that every chain is.
    func recordFigureProgress(appId: String, environment: String, settings: String, resumeAfter: String?, complete: Bool) async throws
    /// The figures of every chain of each of `customers` (ids as the app gives them) in
    /// `environment`, by customer, with the rows of the whole app only (group `""`), its
    /// purchases and first paid dates: what an experiment's results read of its exposed customers.
    func chainFigures(appId: String, environment: String, customers: [String]) async throws -> [String: [ChainFigures]]
    /// Experiment `experimentId`'s exposed customers per variant, and the records
    /// (``ExperimentRecord``) of those in `environment` summed per variant and windows, as of
    /// `now`: a record counting a sale at or after now is not summed but named among the
    /// ``ExperimentOutcomeSums/unsettled`` enrolments.
    func experimentOutcomeSums(appId: String, environment: String, experimentId: String, now: Date) async throws -> ExperimentOutcomeSums
}

/// An experiment's outcome records summed (``FigureStore/experimentOutcomeSums(appId:environment:experimentId:now:)``).
public struct ExperimentOutcomeSums: Sendable, Hashable {
    /// Enrolled customers per variant.
    public var exposed: [String: Int] = [:]
    /// The records of one variant with the same windows (``ExperimentRecord/moneyText``): how
    /// many, and how many of them have each flag.
    public struct Group: Sendable, Hashable {
        public var variant: String
        public var moneyText: String
        public var customers: Int
        public var trialsStarted: Int
        public var trialConversions: Int
        public var paying: Int
        public var refunded: Int

        public init(variant: String, moneyText: String, customers: Int, trialsStarted: Int, trialConversions: Int, paying: Int, refunded: Int) {
            self.variant = variant
            self.moneyText = moneyText
            self.customers = customers
            self.trialsStarted = trialsStarted
            self.trialConversions = trialConversions
            self.paying = paying
            self.refunded = refunded
        }
    }
    public var groups: [Group] = []
    /// Enrolments whose record counts a sale dated at or after now: their outcomes are read
    /// from their chains.
    public var unsettled: [ExperimentEnrolment] = []

    public init(exposed: [String: Int] = [:], groups: [Group] = [], unsettled: [ExperimentEnrolment] = []) {
        self.exposed = exposed
        self.groups = groups
        self.unsettled = unsettled
    }

    /// Adds an exposed customer whose record is `record`, read at `now`: to its group (kept in
    /// the order of variant and windows), among the unsettled, or only to the exposed.
    public mutating func add(_ record: ExperimentRecord, of enrolment: ExperimentEnrolment, now: Date) {
        exposed[enrolment.variant, default: 0] += 1
        guard !record.isEmpty else { return }
        if let last = record.lastSale, last >= now {
            let place = unsettled.partitioningIndex(where: { $0.customerId > enrolment.customerId })
            unsettled.insert(enrolment, at: place)
            return
        }
        let key = (enrolment.variant, record.moneyText)
        let place = groups.partitioningIndex(where: { ($0.variant, $0.moneyText) >= key })
        if place == groups.count || (groups[place].variant, groups[place].moneyText) != key {
            groups.insert(
                Group(variant: key.0, moneyText: key.1, customers: 0, trialsStarted: 0, trialConversions: 0, paying: 0, refunded: 0), at: place)
        }
        groups[place].customers += 1
        groups[place].trialsStarted += record.trialStarted ? 1 : 0
        groups[place].trialConversions += record.converted ? 1 : 0
        groups[place].paying += record.paying ? 1 : 0
        groups[place].refunded += record.refunded ? 1 : 0
    }
}

extension Array {
    /// The first index whose element meets `belongs`, in an array where every element that
    /// meets it follows every one that does not.
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// How far an app's figures in one environment are built (docs/read-side.md).
public struct FigureState: Sendable, Hashable {
    /// What the figures were computed with (the time zone, the catalog, the commission rule).
    public var settings: String
    /// The last chain a build wrote, in the order of the chains' ids.
    public var resumeAfter: String?
    /// Whether every chain's figures are written: only then are they read.
    public var complete: Bool

    public init(settings: String, resumeAfter: String?, complete: Bool) {
        self.settings = settings
        self.resumeAfter = resumeAfter
        self.complete = complete
    }
}

/// The apps (tenants) the store knows.
public protocol AppRepository: Sendable {
    /// Records an app, or updates its bundle id; idempotent.
    func saveApp(_ app: AppRecord) async throws
    /// Every app, by id.
    func apps() async throws -> [AppRecord]
}

/// The dashboard's users (across apps; each names the apps it may see).
public protocol DashboardUserRepository: Sendable {
    /// Creates the user or replaces its hash, role and apps (keeping its creation time); returns
    /// whether it was created. A new password hash ends every session of the user in the same
    /// transaction: a reset password opens nothing that the old one opened.
    @discardableResult
    func saveDashboardUser(_ user: DashboardUser) async throws -> Bool
    /// The user with this email (any case), if any.
    func dashboardUser(email: String) async throws -> DashboardUser?
    /// Every user, by email.
    func dashboardUsers() async throws -> [DashboardUser]
    /// Records a new sign-in session (and forgets sessions that ended before it began).
    func createDashboardSession(_ session: DashboardSession) async throws
    /// The session with this token hash, unless it has ended at `now`.
    func dashboardSession(tokenHash: String, now: Date) async throws -> DashboardSession?
    /// Ends a session (sign-out); nothing happens when it does not exist.
    func deleteDashboardSession(tokenHash: String) async throws
}

/// Customers and the aliases that link Apple's identifiers to them, per app.
public protocol CustomerRepository: Sendable {
    /// Whether the customer exists in the app.
    func customerExists(appId: String, customerId: String) async throws -> Bool
    /// The customer an alias belongs to, if any.
    func customer(appId: String, alias: CustomerAlias) async throws -> String?
    /// The owners of those of `aliases` that have one: ``customer(appId:alias:)`` for many at once.
    func customers(appId: String, aliases: [CustomerAlias]) async throws -> [CustomerAlias: String]
    /// The customer's aliases.
    func aliases(appId: String, customerId: String) async throws -> [CustomerAlias]
    /// The app's most recently created customers, newest first, at most `limit` (at most 1,000).
    func recentCustomers(appId: String, limit: Int) async throws -> [String]
}

/// What apps keep about their customers (``CustomerAttribute``), and the customers of an app
/// a page at a time.
public protocol CustomerAttributeStore: Sendable {
    /// The customer's attributes, removed ones included (their value `nil`), in key order.
    func customerAttributes(appId: String, customerId: String) async throws -> [CustomerAttribute]
    /// Sets each of `attributes` (a `nil` value removes it) unless the stored one was set
    /// later; creates the customer if new. Throws ``StoreError/Code/limitReached`` when the
    /// customer would keep more than ``CustomerAttribute/maximumPerCustomer``.
    func setCustomerAttributes(appId: String, customerId: String, _ attributes: [CustomerAttribute], at: Date) async throws
    /// Up to `limit` (1 to 1,000) of the app's customer ids after `after` (exclusive; `nil` from
    /// the start), in the order of their UTF-8 bytes: a keyset page, costing what it answers.
    func customerPage(appId: String, after: String?, limit: Int) async throws -> [String]
}

/// The app account tokens the server issued: random UUIDs, each held by one customer of an app,
/// never derived from anything a stranger knows. An issued token is the customer's
/// ``CustomerAlias/Kind/appAccountToken`` alias (so ``CustomerRepository/customer(appId:alias:)``
/// names its holder), and only an issued token is: a token the server never issued to anyone
/// links nothing. Besides the tokens it holds, a customer has one current token, the one handed
/// out.
public protocol AppAccountTokenRegistry: Sendable {
    /// The customer's current token; when it has none yet, `proposed` is issued to it (the
    /// customer is created if new) and answered. Callers asking at once all get the one that won.
    func issueAppAccountToken(appId: String, customerId: String, proposed: String, at: Date) async throws -> String
    /// Revokes every token the customer holds (they link nothing from now on) and issues
    /// `proposed` as its current one; returns the revoked tokens.
    func rotateAppAccountToken(appId: String, customerId: String, proposed: String, at: Date) async throws -> [String]
}

/// The ledger of facts, written through changesets.
public protocol LedgerRepository: Sendable {
    /// Applies a changeset in one transaction. Throws ``StoreError`` with
    /// ``StoreError/Code/aliasConflict`` (and writes nothing) when a link names an alias
    /// another customer owns.
    @discardableResult
    func apply(_ changeset: Changeset) async throws -> ChangesetResult
    /// Applies changesets in order in one transaction: all of them or, when one is refused or
    /// the write fails, none. One commit for a batch of notifications: changesets that all
    /// record inbox outcomes (worked out from rows flushed when they were received) do not wait
    /// for a flush of their own, any other write does.
    @discardableResult
    func apply(_ changesets: [Changeset]) async throws -> [ChangesetResult]
    /// Every entry of the customer: recorded for it, or about a chain it owns; oldest signed first.
    func ledger(appId: String, customerId: String) async throws -> [LedgerEntry]
    /// Every entry about one chain (and revocations of its transactions); oldest signed first.
    func ledger(appId: String, originalTransactionId: String) async throws -> [LedgerEntry]
    /// ``ledger(appId:originalTransactionId:)`` for many chains in one read, by chain (a chain
    /// with no entry is absent), without the entries' signed payloads (`raw` is nil): what
    /// deciding and reading a state need, at a fraction of the bytes.
    func ledgers(appId: String, originalTransactionIds: [String]) async throws -> [String: [LedgerEntry]]
    /// The entries about one transaction (its purchase facts and revocations).
    func ledger(appId: String, transactionId: String) async throws -> [LedgerEntry]
    /// Every entry of the app (analytics), in recording order.
    func ledger(appId: String) async throws -> [LedgerEntry]
    /// The app's entries with row ids in `(after, through]`, in recording order: what a reader
    /// that saw the ledger up to `after` has not seen.
    func ledger(appId: String, after: Int64, through: Int64) async throws -> [LedgerEntry]
    /// How many entries the app's ledger holds and the last row id: cheap, to tell whether
    /// anything was recorded since a reader last looked.
    func ledgerVersion(appId: String) async throws -> LedgerVersion
    /// How many entries the app's ledger holds, counted up to `limit` (cheap on any ledger):
    /// whether it is small enough to replay.
    func ledgerCount(appId: String, limit: Int) async throws -> Int
}

/// The size of an app's ledger: its row count and last row id.
public struct LedgerVersion: Sendable, Hashable {
    public var count: Int
    public var lastId: Int64

    public init(count: Int, lastId: Int64) {
        self.count = count
        self.lastId = lastId
    }
}

/// Received server notifications, stored raw before the server answers, then processed.
public protocol NotificationInbox: Sendable {
    /// Stores a notification durably; an exact repeat returns the existing row.
    func receive(_ notification: InboxNotification) async throws -> InboxInsertion
    /// Leases up to `limit` pending rows to `owner` until `leaseUntil`, taking each app's oldest
    /// rows in turn so that one app's backlog never holds back another's; rows leased by
    /// another owner whose lease has not run out at `now` are skipped. A row that names a chain
    /// (`metadata.originalTransactionId` as received) waits while an earlier row of the same
    /// chain is pending, so that two workers (replicas) never decide changes of one chain at
    /// once, and each decides after the one before it committed. Each claim counts as an
    /// attempt.
    func claimPending(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [InboxNotification]
    /// Frees every lease (at start, when this process is the only one using the store).
    func releaseLeases() async throws
    /// Whether a notification with this `notificationUUID` was already processed, other than `exceptId`.
    func isProcessed(appId: String, notificationUUID: String, exceptId: Int64) async throws -> Bool
    /// The ids of the processed rows carrying each of `notificationUUIDs`, by lowercased uuid
    /// (a uuid no processed row carries is absent): ``isProcessed(appId:notificationUUID:exceptId:)``
    /// for many at once.
    func processedNotifications(appId: String, notificationUUIDs: [String]) async throws -> [String: Set<Int64>]
    /// The app's inbox rows, newest first (without bodies unless the filter asks for them).
    func notifications(appId: String, filter: NotificationFilter) async throws -> [InboxNotification]
    /// One row.
    func notification(id: Int64) async throws -> InboxNotification?
    /// Puts a failed row of the app back in the queue with no attempts counted.
    func requeueFailedNotification(appId: String, id: Int64) async throws
    /// Removes the V1 `password` (the app's shared secret) from bodies and ledger copies an
    /// earlier version stored with it; returns how many rows changed.
    func removeStoredV1Passwords() async throws -> Int
    /// How many rows are pending, across apps.
    func pendingCount() async throws -> Int
    /// When the oldest pending row (the first still queued) was received; nil when none is
    /// pending. The age of the backlog, for `/metrics`.
    func oldestPendingReceivedAt() async throws -> Date?
    /// When the latest notification of the app still in the inbox was received; nil when none is.
    func lastReceivedAt(appId: String) async throws -> Date?
    /// Deletes up to `limit` rows in `states` received before `cutoff` (retention of rejected
    /// and duplicate rows); returns how many went.
    func purgeNotifications(states: Set<InboxState>, receivedBefore cutoff: Date, limit: Int) async throws -> Int
}

/// The log of what happened to customers and subscriptions.
public protocol EventLog: Sendable {
    /// The customer's events (recorded for it, or about a chain it owns), oldest first.
    func events(appId: String, customerId: String, limit: Int) async throws -> [EventRecord]
    /// The events recorded about one chain: the keys of those in the log, and the horizon
    /// before which retention removed its events.
    func eventKeys(appId: String, originalTransactionId: String) async throws -> RecordedEvents
    /// ``eventKeys(appId:originalTransactionId:)`` for many chains in one read, by chain (a
    /// chain with no event and no horizon is absent).
    func eventKeys(appId: String, originalTransactionIds: [String]) async throws -> [String: RecordedEvents]
}

/// Removing what has grown old (``RetentionTable``), a batch at a time.
public protocol RetentionStore: Sendable {
    /// Removes up to `limit` rows of `table` older than `cutoff`, in the order they were
    /// written, going on from where the previous pass over the table stopped.
    func pruneRows(_ table: RetentionTable, before cutoff: Date, limit: Int) async throws -> RetentionPass
}

/// Events on their way out: deliveries written with their events, leased by dispatchers
/// (PostgreSQL `FOR UPDATE SKIP LOCKED`, so replicas never send one delivery at once), and the
/// log of every attempt.
public protocol EventOutbox: Sendable {
    /// Leases up to `limit` pending deliveries due at `now` whose destination is not disabled.
    func leaseDeliveries(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [OutboxDelivery]
    /// Frees every delivery lease (at start, when this process is the only one using the store).
    func releaseDeliveryLeases() async throws
    /// Records an attempt of a delivery leased by `owner` and what it leaves it in.
    func finishDelivery(id: Int64, owner: String, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws
    /// Hands deliveries leased by `owner` back unsent, due at `until` (their destination asked
    /// to wait): no attempt is recorded and the lease's count is undone.
    func postponeDeliveries(ids: [Int64], owner: String, until: Date) async throws
    /// The app's deliveries to `destination`, newest first, optionally in one state.
    func deliveries(appId: String, destination: String, state: DeliveryState?, limit: Int) async throws -> [OutboxDelivery]
    /// One delivery of the app.
    func delivery(appId: String, id: Int64) async throws -> OutboxDelivery?
    /// A delivery's attempts, oldest first.
    func attempts(deliveryId: Int64) async throws -> [DeliveryAttempt]
    /// Puts dead deliveries of `destination` (one, or every one when `id` is nil) back to
    /// pending, due at `now`; returns how many.
    func replayDeliveries(appId: String, destination: String, id: Int64?, now: Date) async throws -> Int
    /// Stops deliveries to a destination (its endpoint answered 410) until it is enabled again.
    func disableDestination(appId: String, destination: String, reason: String, at: Date) async throws
    func enableDestination(appId: String, destination: String) async throws
    /// The app's disabled destinations and why.
    func disabledDestinations(appId: String) async throws -> [String: String]
    /// How many deliveries are in each state, per destination of the app.
    func deliveryCounts(appId: String) async throws -> [String: [DeliveryState: Int]]
    /// Adds or replaces a webhook added through the admin API (keeping its creation time);
    /// returns whether it was new.
    @discardableResult
    func saveWebhook(_ webhook: StoredWebhook) async throws -> Bool
    /// Removes one; returns whether it existed.
    @discardableResult
    func deleteWebhook(appId: String, id: String) async throws -> Bool
    /// Every stored webhook (all apps when `appId` is nil), by app and id.
    func storedWebhooks(appId: String?) async throws -> [StoredWebhook]
}

/// Background jobs, leased so that no two workers run the same job at once (PostgreSQL:
/// `FOR UPDATE SKIP LOCKED`; SQLite: one writer at a time).
public protocol JobQueue: Sendable {
    /// Adds a job; a job with the same idempotency key in the app is kept instead. Returns its id.
    @discardableResult
    func enqueue(_ job: JobRecord) async throws -> Int64
    /// Leases up to `limit` due jobs to `owner` until `leaseUntil`.
    func leaseJobs(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [JobRecord]
    /// Marks a leased job done.
    func completeJob(id: Int64, owner: String) async throws
    /// Records a failed attempt: retried at `retryAt`, or failed for good when `nil`.
    func failJob(id: Int64, owner: String, error: String, retryAt: Date?) async throws
    /// One job.
    func job(id: Int64) async throws -> JobRecord?
}

/// The record of operators' actions.
public protocol AuditLog: Sendable {
    /// The app's audit entries, newest first.
    func auditEntries(appId: String, limit: Int) async throws -> [AuditEntry]
    /// The audit entries about one customer of the app, newest first.
    func auditEntries(appId: String, customerId: String, limit: Int) async throws -> [AuditEntry]
}

/// What the reconciliation scheduler asks the store beyond the job queue: which chains the
/// ledger knows (to plan looks at Apple) and the last job of a kind (where the previous sweep
/// stopped).
public protocol ReconciliationQueries: Sendable {
    /// Every original transaction id the app's ledger names, sorted.
    func knownChains(appId: String) async throws -> [String]
    /// The original transaction ids with ledger entries recorded at or after `date`, sorted.
    func knownChains(appId: String, recordedSince date: Date) async throws -> [String]
    /// Whether any chain has a ledger entry recorded at or after `date` (one row read, not the list).
    func hasChains(appId: String, recordedSince date: Date) async throws -> Bool
    /// The app's job of `kind` in `state` with the latest `runAt`, if any.
    func latestJob(appId: String, kind: String, state: JobState) async throws -> JobRecord?
    /// The idempotency keys of the app's pending jobs of `kind`.
    func pendingJobKeys(appId: String, kind: String) async throws -> Set<String>
    /// The app's jobs of `kind`, oldest `runAt` first, at most `limit`.
    func jobs(appId: String, kind: String, limit: Int) async throws -> [JobRecord]
    /// The earliest instant a pending job or a pending outbox delivery falls due, of any app
    /// (possibly past); `nil` when nothing waits. A driver of simulated time jumps to it.
    func nextWorkDate() async throws -> Date?
}

/// Problems, each opened once per cause while open; opening and resolving can record an event
/// (`problem.opened`, `problem.resolved`) in the same transaction, so alerts go out through the
/// outbox.
public protocol ProblemRegistry: Sendable {
    /// Opens `problem` unless one with its cause is open (then counts an occurrence); records
    /// `event` only when it opened. Returns whether it opened.
    @discardableResult
    func openProblem(_ problem: Problem, event: EventRecord?) async throws -> Bool
    /// Resolves the open problem of `causeKey`, if any, recording `event` for it; returns it.
    @discardableResult
    func resolveProblem(
        appId: String, causeKey: String, at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?
    ) async throws -> Problem?
    /// Resolves one open problem by id; returns it, or `nil` when none is open with that id.
    func resolveProblem(appId: String, id: Int64, at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?) async throws -> Problem?
    /// The app's problems in `status` (any when `nil`), newest first.
    func problems(appId: String, status: ProblemStatus?, limit: Int) async throws -> [Problem]
    /// The problems of one customer of the app in `status`, newest first (the customer id
    /// compared as exact bytes, see ``CustomerId``).
    func problems(appId: String, customerId: String, status: ProblemStatus, limit: Int) async throws -> [Problem]
}

/// Keys the server makes for itself once and shares between replicas.
public protocol ServerKeyStore: Sendable {
    /// The value stored under `name`; when there is none, `proposed` is stored and answered.
    /// Replicas asking at once all get the one value that won.
    func serverKey(name: String, proposed: String, now: Date) async throws -> String
}
