import Foundation
import SQLKit

extension SQLStore {
    @discardableResult
    public func apply(_ changeset: Changeset) async throws -> ChangesetResult {
        let changeset = changeset.withPreparedFigures()
        let writing = chainCache.beginWrite(appId: changeset.appId, entries: changeset.entries)
        defer { chainCache.endWrite(writing) }
        let (dialect, rollups) = (backend.dialect, rollupDeferral)
        let raws = Self.storedRaws(changeset.entries)
        return try await commit([changeset]) { db in try await Self.write(changeset, raws: raws, dialect: dialect, rollups: rollups, db) }
    }

    @discardableResult
    public func apply(_ changesets: [Changeset]) async throws -> [ChangesetResult] {
        try await apply(try Self.prepare(changesets))
    }

    /// Changesets with their facts, event details and figures encoded, ready for the writer.
    public struct PreparedChangesets: Sendable {
        fileprivate var changesets: [Changeset]
        fileprivate var facts: [[String]]
        fileprivate var details: [[String]]
        /// Each changeset's entries' signed payloads as stored, and the headers they refer to.
        fileprivate var raws: [(raws: [String?], headers: [CompactSignedText.Header])]
    }

    /// Encodes what `changesets` write, without the store: a bulk load (`bench seed`) prepares
    /// the next group while the writer writes the one before.
    public static func prepare(_ changesets: [Changeset]) throws -> PreparedChangesets {
        let facts = try changesets.map { try $0.entries.map { try StoreCoding.encode($0.fact) } }
        let changesets = changesets.map { $0.withPreparedFigures() }
        return PreparedChangesets(
            changesets: changesets, facts: facts, details: changesets.map { $0.events.map(\.details.json) },
            raws: changesets.map { storedRaws($0.entries) })
    }

    /// Writes prepared changesets (``prepare(_:)``) in one transaction.
    @discardableResult
    public func apply(_ prepared: PreparedChangesets) async throws -> [ChangesetResult] {
        let (changesets, encoded, details, raws) = (prepared.changesets, prepared.facts, prepared.details, prepared.raws)
        guard !changesets.isEmpty else { return [] }
        let writings = changesets.map { chainCache.beginWrite(appId: $0.appId, entries: $0.entries) }
        defer { for writing in writings { chainCache.endWrite(writing) } }
        let (dialect, rollups) = (backend.dialect, rollupDeferral)
        return try await commit(changesets) { db in
            try await Self.writeAll(changesets, facts: encoded, details: details, raws: raws, dialect: dialect, rollups: rollups, db)
        }
    }

    /// Whether every changeset records an inbox row's outcome, and so can be worked out again
    /// from that row, which was flushed when it was received.
    static func replayable(_ changesets: [Changeset]) -> Bool {
        changesets.allSatisfy { $0.inboxOutcome != nil }
    }

    /// Runs `body` in a transaction that is flushed unless its changesets are
    /// ``replayable(_:)``: then the commit waits for no flush of its own. The next flushed
    /// commit covers it (SQLite's log and PostgreSQL's WAL are written in order, so nothing
    /// after a lost commit survives it); a power cut before that leaves the inbox rows pending,
    /// and processing them again writes the same facts and events, keyed by Apple's identities.
    private func commit<T: Sendable>(_ changesets: [Changeset], _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if Self.replayable(changesets) { return try await backend.unflushedTransaction(body) }
        return try await backend.transaction(body)
    }

    /// Writes changesets inside the caller's transaction with a few statements for all of
    /// them: their ledger entries in one insert, their events in another, their deliveries and
    /// jobs likewise; links, audit entries, offerings and inbox outcomes one by one. Rows go
    /// in in the changesets' order, so the result is the one writing them one after another
    /// gives: a fact or event already there, or earlier in the batch, is not new.
    private static func writeAll(
        _ changesets: [Changeset], facts: [[String]], details: [[String]], raws: [(raws: [String?], headers: [CompactSignedText.Header])],
        dialect: SQLStoreDialect, rollups: RollupDeferral, _ db: any SQLDatabase
    ) async throws -> [ChangesetResult] {
        for changeset in changesets { try await writeOfferingEnrolmentsAndLinks(changeset, db) }
        // Ledger entries, each counted new for the first changeset that brings it.
        var entryRows: [(changeset: Int, entry: LedgerEntry, fact: String, raw: String?)] = []
        for (index, changeset) in changesets.enumerated() {
            for (position, (entry, fact)) in zip(changeset.entries, facts[index]).enumerated() {
                entryRows.append((index, entry, fact, raws[index].raws[position]))
            }
        }
        try await storeSigningHeaders(raws.flatMap(\.headers), db)
        var insertedFacts: Set<String> = []
        for chunk in entryRows.chunked(by: 256) {
            var query: SQLQueryString = """
                INSERT INTO ledger (app_id, fact_key, kind, customer_id, original_transaction_id, transaction_id,
                source, signed_at, fact, raw, recorded_at) VALUES
                """
            for (position, row) in chunk.enumerated() {
                let appId = changesets[row.changeset].appId
                let entry = row.entry
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: appId), \(bind: entry.key), \(bind: entry.fact.kind), \(bind: entry.customerId),
                    \(bind: entry.fact.originalTransactionId), \(bind: entry.fact.transactionId), \(bind: entry.source.rawValue),
                    \(bind: entry.fact.signedDate?.millisecondsSince1970), \(bind: row.fact), \(bind: row.raw),
                    \(bind: entry.recordedAt.millisecondsSince1970))
                    """
            }
            query += " ON CONFLICT (app_id, fact_key) DO NOTHING RETURNING app_id, fact_key"
            for row in try await db.raw(query).all() {
                insertedFacts.insert(try row.string("app_id") + "\u{1F}" + row.string("fact_key"))
            }
        }
        var results = changesets.map { _ in ChangesetResult(newEntries: 0, newEvents: 0) }
        for row in entryRows where insertedFacts.remove(changesets[row.changeset].appId + "\u{1F}" + row.entry.key) != nil {
            results[row.changeset].newEntries += 1
        }
        // Events, then a delivery for each new event's destinations.
        var eventRows: [(changeset: Int, event: EventRecord, details: String)] = []
        for (index, changeset) in changesets.enumerated() {
            for (event, json) in zip(changeset.events, details[index]) { eventRows.append((index, event, json)) }
        }
        var insertedEvents: [String: Int64] = [:]
        for chunk in eventRows.chunked(by: 256) {
            // The trace context only when tracing gave one (`trace_context`, schema step 30).
            let traced = chunk.contains { $0.event.traceContext != nil }
            var query: SQLQueryString = """
                INSERT INTO events (app_id, customer_id, original_transaction_id, type, payload, occurred_at, idempotency_key
                """
            query += traced ? ", trace_context) VALUES" : ") VALUES"
            for (position, row) in chunk.enumerated() {
                let event = row.event
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: changesets[row.changeset].appId), \(bind: event.customerId), \(bind: event.originalTransactionId),
                    \(bind: event.type.rawValue), \(bind: row.details), \(bind: event.occurredAt.millisecondsSince1970),
                    \(bind: event.idempotencyKey)
                    """
                query += traced ? ", \(bind: event.traceContext))" : ")"
            }
            query += " ON CONFLICT (app_id, idempotency_key) DO NOTHING RETURNING id, app_id, idempotency_key"
            for row in try await db.raw(query).all() {
                insertedEvents[try row.string("app_id") + "\u{1F}" + row.string("idempotency_key")] = try row.int64("id")
            }
        }
        var deliveries: [(appId: String, eventId: Int64, destination: String, now: Int64)] = []
        for row in eventRows {
            let appId = changesets[row.changeset].appId
            guard let eventId = insertedEvents.removeValue(forKey: appId + "\u{1F}" + row.event.idempotencyKey) else { continue }
            results[row.changeset].newEvents += 1
            let now = changesets[row.changeset].at.millisecondsSince1970
            for destination in Set(row.event.destinations).sorted() { deliveries.append((appId, eventId, destination, now)) }
        }
        for chunk in deliveries.chunked(by: 256) {
            var query: SQLQueryString =
                "INSERT INTO event_deliveries (app_id, event_id, destination, state, attempts, next_attempt_at, created_at) VALUES"
            for (position, row) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: row.appId), \(bind: row.eventId), \(bind: row.destination), \(bind: DeliveryState.pending.rawValue), 0,
                    \(bind: row.now), \(bind: row.now))
                    """
            }
            query += " ON CONFLICT (event_id, destination) DO NOTHING"
            try await db.raw(query).run()
        }
        let jobs = changesets.flatMap { changeset in changeset.jobs.map { (changeset.appId, $0) } }
        for chunk in jobs.chunked(by: 256) {
            var query: SQLQueryString = "INSERT INTO jobs (app_id, kind, payload, run_at, idempotency_key, state, attempts) VALUES"
            for (position, (appId, job)) in chunk.enumerated() {
                query += position == 0 ? " " : ", "
                query += """
                    (\(bind: appId), \(bind: job.kind), \(bind: job.payload), \(bind: job.runAt.millisecondsSince1970),
                    \(bind: job.idempotencyKey), \(bind: JobState.pending.rawValue), 0)
                    """
            }
            query += " ON CONFLICT (app_id, idempotency_key) DO NOTHING"
            try await db.raw(query).run()
        }
        for changeset in changesets {
            for entry in changeset.audit { try await insertAudit(entry, appId: changeset.appId, db) }
        }
        // The figures of all the changesets at once (their ledger rows are all in): new chains go
        // in bulk. Of two updates of one chain the one computed from the most facts is kept (the
        // later of equals): only it can agree with the ledger now; the others' retry jobs compute
        // the chain again from the committed ledger (one may have linked it to its customer).
        var figures: [String: [FigureUpdate]] = [:]
        for changeset in changesets { figures[changeset.appId, default: []] += changeset.figures }
        for (appId, updates) in figures.sorted(by: { $0.key < $1.key }) {
            var latest: [String: Int] = [:]
            for (index, update) in updates.enumerated() {
                let key = update.environment + "\u{1F}" + update.chain
                if let other = latest[key], updates[other].facts > update.facts { continue }
                latest[key] = index
            }
            let kept = updates.indices.filter { latest[updates[$0].environment + "\u{1F}" + updates[$0].chain] == $0 }
            for index in Set(updates.indices).subtracting(kept).sorted() { try await addJob(updates[index].retry, appId: appId, db) }
            try await writeFigures(kept.map { updates[$0] }, appId: appId, dialect: dialect, rollups: rollups, db)
        }
        let outcomes = changesets.compactMap { changeset in changeset.inboxOutcome.map { (changeset.appId, $0) } }
        for chunk in outcomes.chunked(by: 64) { try await updateInbox(Array(chunk), db) }
        return results
    }

    /// Records inbox rows' outcomes with one statement (each row's values picked by its id).
    private static func updateInbox(_ outcomes: [(appId: String, outcome: InboxOutcome)], _ db: any SQLDatabase) async throws {
        guard outcomes.count > 1 else {
            if let (appId, outcome) = outcomes.first { try await updateInbox(outcome, appId: appId, db) }
            return
        }
        func column<Value: Encodable & Sendable>(_ name: String, as type: String, _ value: (String, InboxOutcome) -> Value) -> SQLQueryString {
            var text: SQLQueryString = "\(unsafeRaw: name) = CASE id"
            for (appId, outcome) in outcomes {
                text += " WHEN \(bind: outcome.inboxId) THEN CAST(\(bind: value(appId, outcome)) AS \(unsafeRaw: type))"
            }
            return text + " END"
        }
        var query: SQLQueryString = "UPDATE notification_inbox SET lease_owner = NULL, lease_until = NULL, \(unsafeRaw: queuedAttempts), "
        query += column("state", as: "TEXT") { $1.state.rawValue }
        query += ", " + column("failure_reason", as: "TEXT") { $1.failureReason }
        query += ", " + column("processed_at", as: "BIGINT") { $1.processedAt.millisecondsSince1970 }
        query += ", " + column("notification_uuid", as: "TEXT") { $1.metadata?.notificationUUID?.lowercased() }
        query += ", " + column("notification_type", as: "TEXT") { $1.metadata?.notificationType }
        query += ", " + column("subtype", as: "TEXT") { $1.metadata?.subtype }
        query += ", " + column("original_transaction_id", as: "TEXT") { $1.metadata?.originalTransactionId }
        query += ", " + column("signed_at", as: "BIGINT") { $1.metadata?.signedDate?.millisecondsSince1970 }
        query += ", " + column("environment", as: "TEXT") { $1.metadata?.environment }
        // Each row only within its own app.
        query += " WHERE id IN (" + Self.list(outcomes.map(\.outcome.inboxId)) + ") AND app_id = CASE id"
        for (appId, outcome) in outcomes { query += " WHEN \(bind: outcome.inboxId) THEN \(bind: appId)" }
        query += " END"
        try await db.raw(query).run()
        try await leaveQueue(outcomes, db)
    }

    /// An outcome's row keeps the attempts its leases counted in the queue.
    private static let queuedAttempts =
        "attempts = COALESCE((SELECT q.attempts FROM inbox_queue q WHERE q.app_id = notification_inbox.app_id AND q.id = notification_inbox.id), attempts)"

    /// Takes rows with an outcome out of the queue of pending rows, and lists the rows retention
    /// may remove. Their inbox rows were updated first (``queuedAttempts``).
    private static func leaveQueue(_ outcomes: [(appId: String, outcome: InboxOutcome)], _ db: any SQLDatabase) async throws {
        for (appId, rows) in Dictionary(grouping: outcomes, by: \.appId).sorted(by: { $0.key < $1.key }) {
            let ids = Self.list(rows.map(\.outcome.inboxId))
            try await db.raw("DELETE FROM inbox_queue WHERE app_id = \(bind: appId) AND id IN (" + ids + ")").run()
            let discardable = rows.filter { SQLStore.discardableStates.contains($0.outcome.state) }.map(\.outcome.inboxId)
            guard !discardable.isEmpty else { continue }
            try await db.raw(
                """
                INSERT INTO inbox_discardable (id, received_at) SELECT id, received_at FROM notification_inbox
                WHERE app_id = \(bind: appId) AND id IN (
                """ + Self.list(discardable) + ") ON CONFLICT (id) DO NOTHING"
            ).run()
        }
    }

    /// Writes one changeset inside the caller's transaction.
    /// Adds `job` unless one with its key is there.
    static func addJob(_ job: JobRecord, appId: String, _ db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO jobs (app_id, kind, payload, run_at, idempotency_key, state, attempts)
            VALUES (\(bind: appId), \(bind: job.kind), \(bind: job.payload), \(bind: job.runAt.millisecondsSince1970),
            \(bind: job.idempotencyKey), \(bind: JobState.pending.rawValue), 0)
            ON CONFLICT (app_id, idempotency_key) DO NOTHING
            """
        ).run()
    }

    private static func write(
        _ changeset: Changeset, raws: (raws: [String?], headers: [CompactSignedText.Header]), dialect: SQLStoreDialect,
        rollups: RollupDeferral, _ db: any SQLDatabase
    ) async throws -> ChangesetResult {
        let appId = changeset.appId
        let now = changeset.at.millisecondsSince1970
        try await writeOfferingEnrolmentsAndLinks(changeset, db)
        var newEntries = 0
        try await storeSigningHeaders(raws.headers, db)
        for (entry, raw) in zip(changeset.entries, raws.raws) {
            let fact = try StoreCoding.encode(entry.fact)
            let inserted = try await db.raw(
                """
                INSERT INTO ledger (app_id, fact_key, kind, customer_id, original_transaction_id, transaction_id,
                source, signed_at, fact, raw, recorded_at)
                VALUES (\(bind: appId), \(bind: entry.key), \(bind: entry.fact.kind), \(bind: entry.customerId),
                \(bind: entry.fact.originalTransactionId), \(bind: entry.fact.transactionId), \(bind: entry.source.rawValue),
                \(bind: entry.fact.signedDate?.millisecondsSince1970), \(bind: fact), \(bind: raw), \(bind: entry.recordedAt.millisecondsSince1970))
                ON CONFLICT (app_id, fact_key) DO NOTHING RETURNING id
                """
            ).first()
            if inserted != nil { newEntries += 1 }
        }
        var newEvents = 0
        for event in changeset.events where try await Self.insertEvent(event, appId: appId, now: now, db) {
            newEvents += 1
        }
        for job in changeset.jobs { try await addJob(job, appId: appId, db) }
        for entry in changeset.audit { try await insertAudit(entry, appId: appId, db) }
        try await writeFigures(changeset.figures, appId: appId, dialect: dialect, rollups: rollups, db)
        if let outcome = changeset.inboxOutcome { try await updateInbox(outcome, appId: appId, db) }
        return ChangesetResult(newEntries: newEntries, newEvents: newEvents)
    }

    /// Writes a changeset's offering version and experiment enrolments row by row, and its
    /// customer links together, whether the changeset is written alone or in a batch.
    private static func writeOfferingEnrolmentsAndLinks(_ changeset: Changeset, _ db: any SQLDatabase) async throws {
        let now = changeset.at.millisecondsSince1970
        if let version = changeset.offeringVersion {
            try await Self.saveOfferingVersion(version, appId: changeset.appId, at: now, db)
        }
        for enrolment in changeset.enrolments {
            try await db.raw(
                """
                INSERT INTO experiment_enrolments (app_id, experiment_id, customer_id, variant, enrolled_at)
                VALUES (\(bind: changeset.appId), \(bind: enrolment.experimentId), \(bind: enrolment.customerId), \(bind: enrolment.variant),
                \(bind: enrolment.enrolledAt.millisecondsSince1970))
                ON CONFLICT (app_id, experiment_id, customer_id) DO NOTHING
                """
            ).run()
            try await writeExperimentRecords(appId: changeset.appId, customer: enrolment.customerId, keepingSums: true, db)
        }
        try await Self.link(changeset.links, appId: changeset.appId, at: now, db)
    }

    private static func insertAudit(_ entry: AuditEntry, appId: String, _ db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO audit_log (app_id, actor, action, customer_id, reason, details, at)
            VALUES (\(bind: appId), \(bind: entry.actor), \(bind: entry.action), \(bind: entry.customerId),
            \(bind: entry.reason), \(bind: entry.detailsJSON), \(bind: entry.at.millisecondsSince1970))
            """
        ).run()
    }

    private static func updateInbox(_ outcome: InboxOutcome, appId: String, _ db: any SQLDatabase) async throws {
        let metadata = outcome.metadata
        try await db.raw(
            """
            UPDATE notification_inbox SET state = \(bind: outcome.state.rawValue), failure_reason = \(bind: outcome.failureReason),
            processed_at = \(bind: outcome.processedAt.millisecondsSince1970), lease_owner = NULL, lease_until = NULL, \(unsafeRaw: queuedAttempts),
            notification_uuid = \(bind: metadata?.notificationUUID?.lowercased()), notification_type = \(bind: metadata?.notificationType),
            subtype = \(bind: metadata?.subtype), original_transaction_id = \(bind: metadata?.originalTransactionId),
            signed_at = \(bind: metadata?.signedDate?.millisecondsSince1970), environment = \(bind: metadata?.environment)
            WHERE id = \(bind: outcome.inboxId) AND app_id = \(bind: appId)
            """
        ).run()
        try await leaveQueue([(appId, outcome)], db)
    }

    public func ledger(appId: String, transactionId: String) async throws -> [LedgerEntry] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM ledger WHERE app_id = \(bind: appId) AND transaction_id = \(bind: transactionId) ORDER BY signed_at, id
                """
            ).all().ledgerEntries(of: self, db)
        }
    }

    public func ledger(appId: String, after: Int64, through: Int64) async throws -> [LedgerEntry] {
        try await backend.scan { db in
            try await db.raw("SELECT * FROM ledger WHERE app_id = \(bind: appId) AND id > \(bind: after) AND id <= \(bind: through) ORDER BY id")
                .all().ledgerEntries(of: self, db)
        }
    }

    public func ledgerVersion(appId: String) async throws -> LedgerVersion {
        try await backend.scan { db in
            let row = try await db.raw("SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS last FROM ledger WHERE app_id = \(bind: appId)").first()
            return LedgerVersion(
                count: try row?.decode(column: "n", as: Int.self) ?? 0, lastId: try row?.decode(column: "last", as: Int64.self) ?? 0)
        }
    }

    public func ledgerCount(appId: String, limit: Int) async throws -> Int {
        try await backend.scan { db in
            let row = try await db.raw(
                "SELECT COUNT(*) AS n FROM (SELECT 1 FROM ledger WHERE app_id = \(bind: appId) LIMIT \(bind: max(0, limit))) AS bounded"
            ).first()
            return try row?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    public func ledger(appId: String) async throws -> [LedgerEntry] {
        try await backend.scan { db in
            try await db.raw("SELECT * FROM ledger WHERE app_id = \(bind: appId) ORDER BY id").all().ledgerEntries(of: self, db)
        }
    }

    public func ledger(appId: String, customerId: String) async throws -> [LedgerEntry] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM ledger WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId)
                UNION
                SELECT * FROM ledger WHERE app_id = \(bind: appId) AND original_transaction_id IN (SELECT value FROM customer_aliases
                WHERE app_id = \(bind: appId) AND kind = \(bind: CustomerAlias.Kind.originalTransactionId.rawValue) AND customer_id = \(bind: customerId))
                ORDER BY signed_at, id
                """
            ).all().ledgerEntries(of: self, db)
        }
    }

    public func ledger(appId: String, originalTransactionId: String) async throws -> [LedgerEntry] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM ledger WHERE app_id = \(bind: appId) AND original_transaction_id = \(bind: originalTransactionId)
                UNION
                SELECT * FROM ledger WHERE app_id = \(bind: appId) AND kind = \(bind: "revocation") AND transaction_id IN
                (SELECT transaction_id FROM ledger WHERE app_id = \(bind: appId) AND original_transaction_id = \(bind: originalTransactionId))
                ORDER BY signed_at, id
                """
            ).all().ledgerEntries(of: self, db)
        }
    }

    public func ledgers(appId: String, originalTransactionIds: [String]) async throws -> [String: [LedgerEntry]] {
        let chains = Set(originalTransactionIds)
        let cached = chainCache.lookup(appId: appId, chains: chains)
        let missing = chains.subtracting(cached.found.keys)
        guard !missing.isEmpty else { return cached.found.filter { !$0.value.isEmpty } }
        let read = try await readLedgers(appId: appId, chains: missing)
        chainCache.store(appId: appId, chains: missing, ledgers: read, generation: cached.generation)
        return cached.found.filter { !$0.value.isEmpty }.merging(read) { _, new in new }
    }

    /// The ledgers of `chains`, from the database; more than one query's worth (a planning or
    /// analytics group, not a read or a notification) as a ``SQLBackend/scan(_:)``, so that a
    /// job walking every chain leaves the threads to requests between its queries.
    private func readLedgers(appId: String, chains: Set<String>) async throws -> [String: [LedgerEntry]] {
        var ledgers: [String: [LedgerEntry]] = [:]
        let bulk = chains.count > 200
        for chunk in chains.sorted().chunked(by: 200) {
            let list = Self.list(chunk)
            let read: @Sendable (any SQLDatabase) async throws -> [LedgerEntry] = { db in
                try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.columnsWithoutRaw) FROM ledger WHERE app_id = \(bind: appId) AND original_transaction_id IN (
                    """ + list
                        + """
                        )
                        UNION
                        SELECT \(unsafeRaw: Self.columnsWithoutRaw) FROM ledger WHERE app_id = \(bind: appId) AND kind = \(bind: "revocation")
                        AND transaction_id IN (SELECT transaction_id FROM ledger WHERE app_id = \(bind: appId) AND original_transaction_id IN (
                        """ + list
                            + """
                            ))
                            ORDER BY signed_at, id
                            """
                ).all().ledgerEntries(of: self, db)
            }
            let entries = try await bulk ? backend.scan(read) : backend.read(read)
            // A revocation joins the chain of the transaction it revokes.
            let wanted = Set(chunk)
            var chainOf: [String: String] = [:]
            for entry in entries {
                if let chain = entry.fact.originalTransactionId, wanted.contains(chain), let transaction = entry.fact.transactionId {
                    chainOf[transaction] = chain
                }
            }
            for entry in entries {
                if let chain = entry.fact.originalTransactionId, wanted.contains(chain) {
                    ledgers[chain, default: []].append(entry)
                } else if case .revocation(let revocation) = entry.fact, let chain = chainOf[revocation.transactionId] {
                    ledgers[chain, default: []].append(entry)
                }
            }
        }
        return ledgers
    }

    /// Every ledger column but the signed payload, which reads back as nil.
    static let columnsWithoutRaw =
        "id, app_id, fact_key, kind, customer_id, original_transaction_id, transaction_id, source, signed_at, fact, NULL AS raw, recorded_at"

    public func eventKeys(appId: String, originalTransactionIds: [String]) async throws -> [String: RecordedEvents] {
        var recorded: [String: RecordedEvents] = [:]
        for chunk in Array(Set(originalTransactionIds)).sorted().chunked(by: 200) {
            let list = Self.list(chunk)
            let rows = try await backend.read { db in
                try await db.raw(
                    "SELECT original_transaction_id, idempotency_key, NULL AS before_ms FROM events WHERE app_id = \(bind: appId) "
                        + "AND original_transaction_id IN (" + list + ") UNION ALL SELECT original_transaction_id, NULL, before_ms "
                        + "FROM event_horizons WHERE app_id = \(bind: appId) AND original_transaction_id IN (" + list + ")"
                ).all()
            }
            for row in rows { try Self.addRecordedEvent(row, to: &recorded[try row.string("original_transaction_id"), default: []]) }
        }
        return recorded
    }

    /// Adds a row of an event key or of a chain's horizon to `recorded`.
    private static func addRecordedEvent(_ row: any SQLRow, to recorded: inout RecordedEvents) throws {
        if let key = try row.optionalString("idempotency_key") { recorded.keys.insert(key) }
        if let before = try row.optionalInt64("before_ms") {
            recorded.horizon = max(recorded.horizon ?? .distantPast, Date(millisecondsSince1970: before))
        }
    }

    /// `values` (strings or ids) as a list of bound parameters for `IN (…)`.
    static func list<Value: Encodable & Sendable>(_ values: some Collection<Value>) -> SQLQueryString {
        var list: SQLQueryString = ""
        for (index, value) in values.enumerated() { list += index == 0 ? "\(bind: value)" : ", \(bind: value)" }
        return list
    }

    /// A ledger row's entry; `headers` holds those of its signed payload
    /// (``Array/ledgerEntries(of:_:)`` reads them first).
    func ledgerEntry(_ row: any SQLRow, headers: [String: String]) throws -> LedgerEntry {
        let id = try row.int64("id")
        return LedgerEntry(
            id: id, appId: try row.string("app_id"), key: try row.string("fact_key"),
            fact: try factCache.fact(id: id) { try StoreCoding.decode(LedgerFact.self, from: try row.string("fact"), column: "fact") },
            customerId: try row.optionalString("customer_id"), source: FactSource(rawValue: try row.string("source")),
            raw: try row.optionalString("raw").map { try Self.expandedSignedText($0, headers: headers) }, recordedAt: try row.date("recorded_at"))
    }

    public func eventKeys(appId: String, originalTransactionId: String) async throws -> RecordedEvents {
        let rows = try await backend.read { db in
            try await db.raw(
                """
                SELECT idempotency_key, NULL AS before_ms FROM events
                WHERE app_id = \(bind: appId) AND original_transaction_id = \(bind: originalTransactionId)
                UNION ALL SELECT NULL, before_ms FROM event_horizons
                WHERE app_id = \(bind: appId) AND original_transaction_id = \(bind: originalTransactionId)
                """
            ).all()
        }
        var recorded: RecordedEvents = []
        for row in rows { try Self.addRecordedEvent(row, to: &recorded) }
        return recorded
    }

    public func events(appId: String, customerId: String, limit: Int) async throws -> [EventRecord] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM events WHERE app_id = \(bind: appId) AND (customer_id = \(bind: customerId)
                OR original_transaction_id IN (SELECT value FROM customer_aliases WHERE app_id = \(bind: appId)
                AND kind = \(bind: CustomerAlias.Kind.originalTransactionId.rawValue) AND customer_id = \(bind: customerId)))
                ORDER BY occurred_at, id LIMIT \(bind: max(0, min(limit, 10_000)))
                """
            ).all().map(Self.event)
        }
    }

    public func auditEntries(appId: String, limit: Int) async throws -> [AuditEntry] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM audit_log WHERE app_id = \(bind: appId) ORDER BY id DESC LIMIT \(bind: max(0, min(limit, 10_000)))
                """
            ).all().map(Self.auditEntry)
        }
    }

    public func auditEntries(appId: String, customerId: String, limit: Int) async throws -> [AuditEntry] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM audit_log WHERE app_id = \(bind: appId) AND customer_id = \(bind: customerId)
                ORDER BY id DESC LIMIT \(bind: max(0, min(limit, 10_000)))
                """
            ).all().map(Self.auditEntry)
        }
    }

    static func auditEntry(_ row: any SQLRow) throws -> AuditEntry {
        AuditEntry(
            id: try row.int64("id"), appId: try row.string("app_id"), actor: try row.string("actor"),
            actionName: try row.string("action"), customerId: try row.optionalString("customer_id"),
            reason: try row.optionalString("reason"), details: AuditEntry.details(json: try row.string("details")), at: try row.date("at")
        )
    }
}

extension Array {
    /// The array cut into consecutive pieces of at most `size` elements.
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension Array where Element == any SQLRow {
    /// The ledger entries of these rows, the headers of their signed payloads read first.
    func ledgerEntries(of store: SQLStore, _ db: any SQLDatabase) async throws -> [LedgerEntry] {
        let headers = try await SQLStore.loadSigningHeaders(for: try map { try $0.contains(column: "raw") ? $0.optionalString("raw") : nil }, db)
        return try map { try store.ledgerEntry($0, headers: headers) }
    }
}
