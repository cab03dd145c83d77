import AppStoreModels
import AppStoreVerification
import Foundation
import Logging
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine
import Tracing

/// Drains the inbox: claims pending rows ahead, verifies their V2 bodies concurrently, cuts
/// each batch into runs that can be decided together, and commits each run's changesets in one
/// transaction. What a single row amounts to (facts, a repeat, a rejection) is decided by
/// ``NotificationDecider`` (NotificationDecision.swift), which knows nothing of the batching.
///
/// Every step is idempotent (the ledger and the event log ignore repeats) and each row's
/// writes commit in one transaction with its new state, so a crash at any point leaves the
/// row pending and a later pass finishes it. Rows that cannot be verified are marked
/// rejected with their reason and change nothing else.
public struct InboxProcessor: Sendable {
    /// What processing needs of the store: the inbox, the ledger and customers (through the
    /// intake), and the job queue (refreshes a V1 notification asks for).
    public typealias Storage = NotificationInbox & LedgerRepository & CustomerRepository & JobQueue & EventLog

    package let apps: AppDirectory
    package let store: any InboxProcessor.Storage
    package let clock: @Sendable () -> Date
    package let logger: Logger
    package let metrics: ServerMetrics?
    /// What the notification route verified and counted.
    package let door: NotificationDoor
    /// The lease owner's name: unique per process.
    package let owner: String
    package var intake: FactIntake { FactIntake(store: store) }

    public init(apps: AppDirectory, store: any InboxProcessor.Storage, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.init(apps: apps, door: NotificationDoor(), store: store, clock: clock, logger: logger, metrics: nil)
    }

    package init(
        apps: AppDirectory, door: NotificationDoor, store: any InboxProcessor.Storage, clock: @escaping @Sendable () -> Date, logger: Logger,
        metrics: ServerMetrics?
    ) {
        self.apps = apps
        self.door = door
        self.store = store
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        owner = "worker-\(UUID().uuidString.prefix(8))"
    }

    /// Processes pending rows until none is left; returns how many were handled.
    ///
    /// The V2 rows of a batch are verified concurrently first (signature checks are pure
    /// computation and touch no store). The batch is then cut, in inbox order, into runs of
    /// rows about different chains and notifications (a row naming a chain or a
    /// `notificationUUID` that an earlier row of the run names starts the next run; a V1 row,
    /// which queues refreshes as it goes, is a run of its own). A run's rows are decided
    /// concurrently — none reads what another writes — and written together: one transaction,
    /// one durable commit. Every decision thus reads what the rows before it wrote, exactly as
    /// one at a time.
    ///
    /// A row whose processing throws is left pending under its lease (so it waits a lease
    /// before its next try) and never stops the rows after it; once it has been claimed
    /// `maximumAttempts` times it is marked ``InboxState/failed`` with its last error. When a
    /// run's transaction fails, each of its rows is written alone, so one bad row holds back no
    /// other. Only an unreachable database ends the drain early (the worker retries later).
    ///
    /// The next batch is claimed and verified while this one is decided and written (neither
    /// reads what the other writes: a row's reads are fetched when its run is processed, after
    /// the runs before it committed); a row whose chain has a row in this batch is claimed only
    /// after it. When processing throws, the batch claimed ahead keeps its lease until it runs
    /// out, as a crashed worker's would.
    ///
    /// With `gather`, a batch that was not full is followed by one claimed no sooner than
    /// `gather` after it: under a steady stream, fewer and fuller transactions (each rewrites
    /// the index pages it touches whatever the number of its rows).
    ///
    /// With `pacing`, every claim first waits as long as it says (the worker's
    /// ``InboxSignal``: while notifications arrive in a burst, the door goes first).
    @discardableResult
    public func drain(
        batchSize: Int = 32, leaseSeconds: Double = 30, maximumAttempts: Int = 5, gather: Duration = .zero, pacing: (any Pacing)? = nil
    ) async throws -> Int {
        var handled = 0
        let claimNext = { @Sendable in try await self.claim(batchSize: batchSize, leaseSeconds: leaseSeconds, pacing: pacing) }
        var claimed = try await claimNext()
        while !claimed.batch.isEmpty {
            let waits = gather > .zero && claimed.batch.count < batchSize
            let ahead = Task {
                if waits { try? await Task.sleep(for: gather) }
                return try await claimNext()
            }
            do {
                for run in Self.runs(of: Self.signedFirst(claimed.batch), verifications: claimed.verifications, apps: apps) {
                    handled += run.count
                    try await process(run: run, verifications: claimed.verifications, maximumAttempts: maximumAttempts)
                }
            } catch {
                _ = try? await ahead.value
                throw error
            }
            claimed = try await ahead.value
            // Rows that waited for an earlier row of their chain in this batch (see
            // `claimPending`) can be claimed only now.
            if claimed.batch.isEmpty { claimed = try await claimNext() }
        }
        return handled
    }

    /// Leases up to `batchSize` pending rows and verifies their V2 bodies.
    private func claim(
        batchSize: Int, leaseSeconds: Double, pacing: (any Pacing)?
    ) async throws -> (batch: [InboxNotification], verifications: [Int64: V2Verification]) {
        await pacing?.beforeClaim()
        let started = ContinuousClock.now
        let now = clock()
        let batch = try await store.claimPending(limit: batchSize, owner: owner, now: now, leaseUntil: now.addingTimeInterval(leaseSeconds))
        if batch.isEmpty { await pacing?.claimFoundNothing(startedAt: started) }
        return (batch, await verifyConcurrently(batch, now: now))
    }

    /// What paces a drain's claims (see ``drain(batchSize:leaseSeconds:maximumAttempts:gather:pacing:)``).
    public protocol Pacing: Sendable {
        /// Returns when the next claim may be taken.
        func beforeClaim() async
        /// A claim that started at `start` found no pending row.
        func claimFoundNothing(startedAt start: ContinuousClock.Instant) async
    }

    /// The batch with its V2 rows before its V1 rows, each in the order received. Apple sends a
    /// change in both versions at once when an app asks for both; the V2 row's signed renewal
    /// info (billing retry, grace) must be in the ledger before the V1 row's receipt, which shows
    /// only that the period ended, is weighed, or the period would be called expired.
    package static func signedFirst(_ batch: [InboxNotification]) -> [InboxNotification] {
        batch.filter { $0.version == .v2 } + batch.filter { $0.version != .v2 }
    }

    /// The batch cut into runs whose rows can be decided together (see
    /// ``drain(batchSize:leaseSeconds:maximumAttempts:)``).
    package static func runs(of batch: [InboxNotification], verifications: [Int64: V2Verification], apps: AppDirectory) -> [[InboxNotification]] {
        var runs: [[InboxNotification]] = []
        var current: [InboxNotification] = []
        var named: Set<String> = []
        for row in batch {
            let names = Self.names(of: row, verification: row.id.flatMap { verifications[$0] }, apps: apps)
            if let names, names.isDisjoint(with: named) {
                current.append(row)
                named.formUnion(names)
                continue
            }
            if !current.isEmpty { runs.append(current) }
            if let names {
                current = [row]
                named = names
            } else {
                runs.append([row])
                current = []
                named = []
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// Decides a run's rows concurrently, then writes what was decided in one transaction.
    package func process(run: [InboxNotification], verifications: [Int64: V2Verification], maximumAttempts: Int) async throws {
        // A span per row, in the trace of the request that stored it (InboxProcessor+Tracing.swift).
        let spans = Self.processingSpans(for: run)
        defer { for span in spans.values { span.end() } }
        let reads = try await prefetch(run, verifications: verifications)
        let decisions = await withTaskGroup(of: (Int, Result<Changeset?, any Error>).self) { group in
            for (index, row) in run.enumerated() {
                group.addTask {
                    guard row.attempts <= maximumAttempts else {
                        return (index, .success(self.failure(row, reason: .abandoned(attempts: maximumAttempts))))
                    }
                    do {
                        let verification = row.id.flatMap { verifications[$0] }
                        return (index, .success(try await self.decide(row, verification: verification, reads: reads[row.appId])))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var decisions = [Result<Changeset?, any Error>](repeating: .success(nil), count: run.count)
            for await (index, decision) in group { decisions[index] = decision }
            return decisions
        }
        var decided: [(row: InboxNotification, changeset: Changeset)] = []
        for (row, decision) in zip(run, decisions) {
            switch decision {
            case .success(let changeset?): decided.append((row, Self.traced(changeset, by: row.id.flatMap { spans[$0] })))
            case .success(nil): continue
            case .failure(let error):
                if let span = row.id.flatMap({ spans[$0] }) { NotificationTracing.fail(span, error) }
                if (error as? StoreError)?.code == .unavailable { throw error }
                try await failed(row, error: error, maximumAttempts: maximumAttempts)
            }
        }
        try await commit(decided, maximumAttempts: maximumAttempts, spans: spans)
    }

    /// What a row's decision reads and writes beyond its own inbox row: its chain and its
    /// `notificationUUID`, within its app; nil when the row must run alone (V1).
    package static func names(of row: InboxNotification, verification: V2Verification?, apps: AppDirectory) -> Set<String>? {
        guard row.version == .v2 else { return apps.apps[row.appId] == nil ? [] : nil }
        guard case .verified(let value, _) = verification else { return [] }
        var names: Set<String> = []
        if let chain = value.transaction?.originalTransactionId ?? value.renewalInfo?.originalTransactionId {
            names.insert("\(row.appId)\u{1F}chain\u{1F}\(chain)")
        }
        if let uuid = value.notification.notificationUUID {
            names.insert("\(row.appId)\u{1F}uuid\u{1F}\(uuid.lowercased())")
        }
        return names
    }

    /// What the run's verified V2 rows will read, fetched per app in a few queries: their
    /// chains' ledgers and event keys, the owners of their chains and app account tokens, and
    /// the processed rows sharing their `notificationUUID`s.
    package func prefetch(_ run: [InboxNotification], verifications: [Int64: V2Verification]) async throws -> [String: PrefetchedReads] {
        guard run.count > 1 else { return [:] }
        var asked: [String: (chains: Set<String>, aliases: Set<CustomerAlias>, uuids: Set<String>)] = [:]
        for row in run where row.version == .v2 && apps.apps[row.appId] != nil {
            guard let id = row.id, case .verified(let value, _)? = verifications[id] else { continue }
            var question = asked[row.appId] ?? ([], [], [])
            for chain in [value.transaction?.originalTransactionId, value.renewalInfo?.originalTransactionId].compactMap({ $0 }) {
                question.chains.insert(chain)
                question.aliases.insert(.originalTransactionId(chain))
            }
            if let token = value.transaction?.appAccountToken { question.aliases.insert(.appAccountToken(token)) }
            if let uuid = value.notification.notificationUUID { question.uuids.insert(uuid) }
            asked[row.appId] = question
        }
        var reads: [String: PrefetchedReads] = [:]
        for (appId, question) in asked {
            reads[appId] = try await PrefetchedReads.fetch(
                appId: appId, chains: question.chains, aliases: question.aliases, notificationUUIDs: question.uuids, from: store)
        }
        return reads
    }

    /// Writes a run's changesets in one transaction, then reports each row; when the
    /// transaction fails, writes each row alone (a failing row is handled as any other failure).
    package func commit(
        _ rows: [(row: InboxNotification, changeset: Changeset)], maximumAttempts: Int, spans: [Int64: any Span] = [:]
    ) async throws {
        guard !rows.isEmpty else { return }
        do {
            try await Self.intakeTransaction(rows, spans: spans) { try await store.apply(rows.map(\.changeset)) }
            for (row, changeset) in rows { report(row, changeset) }
            return
        } catch {
            if (error as? StoreError)?.code == .unavailable { throw error }
        }
        for (row, changeset) in rows {
            do {
                try await Self.intakeTransaction([(row, changeset)], spans: spans) { try await store.apply(changeset) }
                report(row, changeset)
            } catch {
                if (error as? StoreError)?.code == .unavailable { throw error }
                try await failed(row, error: error, maximumAttempts: maximumAttempts)
            }
        }
    }

    /// Logs a row whose processing threw, and fails it for good on its last attempt.
    private func failed(_ row: InboxNotification, error: any Error, maximumAttempts: Int) async throws {
        let reason = InboxFailure.processingFailed(InboxText.summary(of: error))
        logger.warning(
            "notification processing failed",
            metadata: [
                "app": "\(row.appId)", "inbox_id": "\(row.id ?? 0)", "attempt": "\(row.attempts)", "error": "\(reason)",
            ])
        if row.attempts >= maximumAttempts { try await fail(row, reason: reason) }
    }

    /// Marks a poison row failed, with its reason, so it no longer takes a worker's time.
    package func fail(_ row: InboxNotification, reason: InboxFailure) async throws {
        guard let changeset = failure(row, reason: reason) else { return }
        try await store.apply(changeset)
        report(row, changeset)
    }

    /// The changeset that marks a row failed for good.
    package func failure(_ row: InboxNotification, reason: InboxFailure) -> Changeset? {
        guard let id = row.id else { return nil }
        let now = clock()
        return forwarding(
            Changeset(
                appId: row.appId, at: now,
                inboxOutcome: InboxOutcome(inboxId: id, state: .failed, failureReason: reason.description, processedAt: now)),
            of: row)
    }

    /// `changeset` with the forwarding of `row` when its app forwards notifications
    /// (`notificationForwarding`): a job keyed by the notification
    /// (``JobRecord/forwardNotification(appId:inboxId:notificationUUID:rowKey:runAt:)``), written
    /// with the row's outcome, so each notification is forwarded once however often Apple sends
    /// it. Whatever the outcome: the second backend judges the notification for itself. Rows the
    /// notification-history sweep stored never reached the notification URL and are not forwarded.
    package func forwarding(_ changeset: Changeset, of row: InboxNotification) -> Changeset {
        guard let id = row.id, apps.apps[row.appId]?.configuration.notificationForwarding != nil,
            row.headers["Source"] != "notification-history"
        else { return changeset }
        let parts = row.idempotencyKey.split(separator: ":")
        let uuid = row.version == .v2 && parts.count == 3 ? String(parts[1]) : nil
        var result = changeset
        result.jobs.append(
            .forwardNotification(appId: row.appId, inboxId: id, notificationUUID: uuid, rowKey: row.idempotencyKey, runAt: changeset.at))
        return result
    }

    /// Why a row failed for good: its processing threw on every attempt, or never finished.
    package enum InboxFailure: Sendable, Hashable, CustomStringConvertible {
        /// Claimed more times than a row may be, without an outcome.
        case abandoned(attempts: Int)
        /// Its processing threw (the error, summarized) on its last attempt.
        case processingFailed(String)

        package var description: String {
            switch self {
            case .abandoned(let attempts): "abandoned: processing did not finish in \(attempts) attempts"
            case .processingFailed(let summary): "processing_failed: \(summary)"
            }
        }
    }

    /// The changeset a row makes, written by the caller; nil for a row without an id. `reads`
    /// is what the row's run fetched ahead, if it did. What the row amounts to is the
    /// ``NotificationDecider``'s; a V1 row's refreshes are queued here, before its facts.
    package func decide(_ row: InboxNotification, verification: V2Verification?, reads: PrefetchedReads? = nil) async throws -> Changeset? {
        try await decision(row, verification: verification, reads: reads).map { forwarding($0, of: row) }
    }

    private func decision(_ row: InboxNotification, verification: V2Verification?, reads: PrefetchedReads?) async throws -> Changeset? {
        guard let id = row.id else { return nil }
        let now = clock()
        guard let app = apps.apps[row.appId] else { return Self.rejected(row, id: id, reason: .unknownApp(row.appId), now: now) }
        let decider = NotificationDecider(store: store, door: door.verified)
        switch await decider.decide(row, id: id, app: app, now: now, verification: verification, reads: reads) {
        case .rejected(let rejection, let metadata):
            return Self.rejected(row, id: id, reason: rejection, now: now, metadata: metadata)
        case .duplicate(let metadata):
            return Changeset(
                appId: row.appId, at: now, inboxOutcome: InboxOutcome(inboxId: id, state: .duplicate, metadata: metadata, processedAt: now))
        case .record(let submission, let refreshes):
            for chain in refreshes {
                _ = try await store.enqueue(.refresh(appId: app.id, chain: chain, cause: .v1Notification(row.idempotencyKey), runAt: now))
            }
            return try await FactIntake(store: store, reads: reads).changeset(for: submission, app: app, now: now)
        }
    }

    /// Counts a written row's outcome and logs a rejection.
    private func report(_ row: InboxNotification, _ changeset: Changeset) {
        let state = changeset.inboxOutcome?.state ?? .pending
        metrics?.notificationProcessed(state: state.rawValue, delay: changeset.at.timeIntervalSince(row.receivedAt))
        if state == .failed {
            logger.error(
                "notification failed for good",
                metadata: ["app": "\(row.appId)", "inbox_id": "\(row.id ?? 0)", "reason": "\(changeset.inboxOutcome?.failureReason ?? "")"])
        }
        if state == .rejected {
            logger.notice(
                "notification rejected",
                metadata: [
                    "app": "\(row.appId)", "inbox_id": "\(row.id ?? 0)", "reason": "\(changeset.inboxOutcome?.failureReason ?? "")",
                ])
        }
    }

    package static func rejected(
        _ row: InboxNotification, id: Int64, reason: InboxRejection, now: Date, metadata: NotificationMetadata? = nil
    ) -> Changeset {
        Changeset(
            appId: row.appId, at: now,
            inboxOutcome: InboxOutcome(
                inboxId: id, state: .rejected, failureReason: reason.description, metadata: metadata, processedAt: now))
    }
}
