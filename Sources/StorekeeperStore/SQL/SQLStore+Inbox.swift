import Foundation
import SQLKit

extension SQLStore {
    /// Stores the notification in a transaction shared with the other notifications arriving
    /// at the same time (``GroupCommit``): one durable commit for all of them, each answered
    /// only once it has committed.
    public func receive(_ notification: InboxNotification) async throws -> InboxInsertion {
        // Encoded here, not while the transaction holds the writer.
        let body = CompactSignedText.compact(notification.body)
        return try await inboxWrites.write(
            Incoming(notification: notification, headers: StoreCoding.encode(notification.headers), body: body.stored, signingHeader: body.header))
    }

    /// A notification on its way into the inbox, its headers encoded and its body compacted.
    struct Incoming: Sendable {
        var notification: InboxNotification
        var headers: String
        var body: String
        var signingHeader: CompactSignedText.Header?
    }

    /// Inserts the notifications `take` gives once the writer is held, in one transaction (the
    /// rows, then their bodies), answering each: a repeat of a stored row, or of one before it,
    /// is a duplicate of that row.
    static func receiveAll(
        _ take: @escaping GroupCommit<Incoming, InboxInsertion>.Take, _ backend: any SQLBackend
    ) async throws -> [InboxInsertion] {
        try await backend.transaction { db in
            let incoming = await take()
            let notifications = incoming.map(\.notification)
            let headers = incoming.map(\.headers)
            let keys = notifications.map { $0.appId + "\u{1F}" + $0.idempotencyKey }
            var inserted: [String: Int64] = [:]
            for chunk in Array(notifications.indices).chunked(by: 100) {
                // The metadata goes in with the row (what admission verified), so that the
                // outcome changes no indexed column.
                // The trace context only when tracing gave one (`trace_context`, schema step 30).
                let traced = chunk.contains { notifications[$0].traceContext != nil }
                var query: SQLQueryString = """
                    INSERT INTO notification_inbox (app_id, idempotency_key, version, headers, received_at, state, attempts,
                    original_transaction_id, notification_uuid, notification_type, subtype, signed_at, environment
                    """
                query += traced ? ", trace_context) VALUES" : ") VALUES"
                for (position, index) in chunk.enumerated() {
                    let notification = notifications[index]
                    let metadata = notification.metadata
                    query += position == 0 ? " " : ", "
                    query += """
                        (\(bind: notification.appId), \(bind: notification.idempotencyKey), \(bind: notification.version.rawValue),
                        \(bind: headers[index]), \(bind: notification.receivedAt.millisecondsSince1970), \(bind: InboxState.pending.rawValue), \(bind: 0),
                        \(bind: metadata?.originalTransactionId), \(bind: metadata?.notificationUUID?.lowercased()), \(bind: metadata?.notificationType),
                        \(bind: metadata?.subtype), \(bind: metadata?.signedDate?.millisecondsSince1970), \(bind: metadata?.environment)
                        """
                    query += traced ? ", \(bind: notification.traceContext))" : ")"
                }
                query += " ON CONFLICT (app_id, idempotency_key) DO NOTHING RETURNING id, app_id, idempotency_key"
                let got = try await db.raw(query).all()
                var bodies: [(Int64, String)] = []
                var queued: [(appId: String, id: Int64, chain: String?)] = []
                for row in got {
                    let key = try row.string("app_id") + "\u{1F}" + row.string("idempotency_key")
                    let id = try row.int64("id")
                    inserted[key] = id
                    // The first of the chunk's rows with this key is the one inserted.
                    if let index = chunk.first(where: { keys[$0] == key }) {
                        bodies.append((id, incoming[index].body))
                        let notification = notifications[index]
                        queued.append((notification.appId, id, Self.queueChain(notification.version, notification.metadata?.originalTransactionId)))
                    }
                }
                try await Self.storeSigningHeaders(chunk.compactMap { incoming[$0].signingHeader }, db)
                try await Self.insertBodies(bodies, db)
                try await Self.enqueue(queued, db)
            }
            // What was not inserted was there before (or earlier in this batch).
            var existing: [String: Int64] = [:]
            let missing = zip(notifications, keys).filter { inserted[$0.1] == nil }.map(\.0)
            for (appId, rows) in Dictionary(grouping: missing, by: \.appId) {
                for chunk in Array(Set(rows.map(\.idempotencyKey))).sorted().chunked(by: 200) {
                    let found = try await db.raw(
                        "SELECT id, idempotency_key FROM notification_inbox WHERE app_id = \(bind: appId) AND idempotency_key IN ("
                            + Self.list(chunk) + ")"
                    ).all()
                    for row in found { existing[appId + "\u{1F}" + (try row.string("idempotency_key"))] = try row.int64("id") }
                }
            }
            var answers: [InboxInsertion] = []
            for key in keys {
                if let id = inserted.removeValue(forKey: key) {
                    answers.append(.inserted(id: id))
                    existing[key] = id
                } else if let id = existing[key] {
                    answers.append(.duplicate(id: id))
                } else {
                    throw StoreError(code: .corruptRow, message: "inbox row vanished after a conflicting insert")
                }
            }
            return answers
        }
    }

    /// The chain a pending row waits behind in the queue: a V2 row's, none for a V1 row.
    ///
    /// Apple sends a change in both versions at once. Left out of its chain's order, the V1
    /// row is claimed in the same batch as its V2 twin, and the drain decides the V2 row first
    /// (``InboxProcessor/signedFirst``): its signed renewal info (billing retry, grace) is in
    /// the ledger before the V1 receipt, which shows only that the period ended. A V2 row
    /// waiting behind a V1 row that arrived a moment earlier would come after it, and the
    /// period would be called expired. (A V1 row's chain is an unsigned hint, listed only.)
    static func queueChain(_ version: NotificationVersion, _ chain: String?) -> String? {
        version == .v2 ? chain : nil
    }

    /// Puts inbox rows just stored (or put back) in the queue of pending rows.
    static func enqueue(_ rows: [(appId: String, id: Int64, chain: String?)], _ db: any SQLDatabase) async throws {
        for chunk in rows.chunked(by: 200) {
            var query: SQLQueryString = "INSERT INTO inbox_queue (app_id, id, chain, attempts) VALUES "
            for (position, row) in chunk.enumerated() {
                query += (position == 0 ? "" : ", ") + "(\(bind: row.appId), \(bind: row.id), \(bind: row.chain), 0)"
            }
            try await db.raw(query + " ON CONFLICT (app_id, id) DO NOTHING").run()
        }
    }

    /// The ids of `appId`'s pending rows a claim may take at `now`, oldest first: not leased,
    /// and no earlier row of their chain pending.
    static func claimable(appId: String, now: Date, limit: Int) -> SQLQueryString {
        """
        SELECT id FROM inbox_queue q WHERE app_id = \(bind: appId)
        AND (lease_until IS NULL OR lease_until < \(bind: now.millisecondsSince1970))
        AND NOT EXISTS (SELECT 1 FROM inbox_queue e WHERE e.app_id = q.app_id AND e.chain = q.chain AND e.id < q.id)
        ORDER BY id LIMIT \(bind: limit)
        """
    }

    public func claimPending(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [InboxNotification] {
        let limit = max(1, limit)
        let lock: SQLQueryString = backend.dialect == .postgresql ? " FOR UPDATE SKIP LOCKED" : ""
        // An empty inbox, the usual answer between bursts, is seen without taking the writer.
        let anyPending = try await backend.read { db in
            try await db.raw("SELECT 1 AS one FROM inbox_queue LIMIT 1").first() != nil
        }
        guard anyPending else { return [] }
        // A lease lost to a power cut costs nothing: the rows are pending again after the
        // restart, and what processing them wrote was flushed after the lease.
        let leased: [(id: Int64, attempts: Int)] = try await backend.unflushedTransaction { db in
            let apps = try await db.raw("SELECT DISTINCT app_id FROM inbox_queue").all().map { try $0.string("app_id") }
            var queues: [[Int64]] = []
            var appOf: [Int64: String] = [:]
            for app in apps.sorted() {
                let ids = try await db.raw(Self.claimable(appId: app, now: now, limit: limit) + lock).all().map { try $0.int64("id") }
                for id in ids { appOf[id] = app }
                queues.append(ids)
            }
            let chosen = Self.takeInTurn(queues, limit: limit)
            guard !chosen.isEmpty else { return [] }
            // Each row by its queue's key (app, id), so that the update seeks it rather than
            // walking the queue.
            var update: SQLQueryString = """
                UPDATE inbox_queue SET lease_owner = \(bind: owner), lease_until = \(bind: leaseUntil.millisecondsSince1970),
                attempts = attempts + 1 WHERE
                """
            for (position, (app, ids)) in Dictionary(grouping: chosen, by: { appOf[$0] ?? "" }).sorted(by: { $0.key < $1.key }).enumerated() {
                update += position == 0 ? " " : " OR "
                update += "(app_id = \(bind: app) AND id IN (" + Self.list(ids) + "))"
            }
            return try await db.raw(update + " RETURNING id, attempts").all().map { (try $0.int64("id"), try $0.int("attempts")) }
        }
        guard !leased.isEmpty else { return [] }
        // Read, with their bodies, after the writer is let go: the rows are leased to this
        // caller, and a row does not change while pending (but for its queue entry).
        let ids = leased.map(\.id)
        let (rows, bodies) = try await backend.read { db in
            (try await db.raw("SELECT * FROM notification_inbox WHERE id IN (" + Self.list(ids) + ")").all(), try await Self.bodies(ids: ids, db))
        }
        let attempts = Dictionary(leased, uniquingKeysWith: { first, _ in first })
        return try rows.map { row in
            var notification = try Self.inboxNotification(row, body: bodies[try row.int64("id")])
            notification.attempts = notification.id.flatMap { attempts[$0] } ?? notification.attempts
            return notification
        }.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
    }

    /// Up to `limit` ids taken from the queues in turn: the first of each, then the second of
    /// each, and so on.
    static func takeInTurn(_ queues: [[Int64]], limit: Int) -> [Int64] {
        var chosen: [Int64] = []
        var depth = 0
        while chosen.count < limit {
            let round = queues.compactMap { depth < $0.count ? $0[depth] : nil }
            if round.isEmpty { break }
            chosen += round.prefix(limit - chosen.count)
            depth += 1
        }
        return chosen
    }

    public func releaseLeases() async throws {
        try await backend.transaction { db in
            try await db.raw("UPDATE inbox_queue SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL").run()
        }
    }

    public func isProcessed(appId: String, notificationUUID: String, exceptId: Int64) async throws -> Bool {
        // By (app, uuid) alone, so the planner takes the uuid index; the few rows sharing a
        // uuid are checked here.
        try await backend.read { db in
            try await db.raw(
                """
                SELECT id, state FROM notification_inbox WHERE app_id = \(bind: appId)
                AND notification_uuid = \(bind: notificationUUID.lowercased()) LIMIT 64
                """
            ).all().contains { row in
                (try? row.int64("id")) != exceptId && (try? row.string("state")) == InboxState.processed.rawValue
            }
        }
    }

    public func processedNotifications(appId: String, notificationUUIDs: [String]) async throws -> [String: Set<Int64>] {
        var processed: [String: Set<Int64>] = [:]
        for chunk in Array(Set(notificationUUIDs.map { $0.lowercased() })).sorted().chunked(by: 200) {
            let list = Self.list(chunk)
            let rows = try await backend.read { db in
                try await db.raw(
                    "SELECT id, state, notification_uuid FROM notification_inbox WHERE app_id = \(bind: appId) AND notification_uuid IN ("
                        + list + ")"
                ).all().map { (try $0.int64("id"), try $0.string("state"), try $0.string("notification_uuid")) }
            }
            for (id, state, uuid) in rows where state == InboxState.processed.rawValue { processed[uuid, default: []].insert(id) }
        }
        return processed
    }

    public func notifications(appId: String, filter: NotificationFilter) async throws -> [InboxNotification] {
        var query: SQLQueryString =
            filter.includesBodies
            ? "SELECT i.*, b.body FROM notification_inbox i LEFT JOIN notification_bodies b ON b.id = i.id WHERE app_id = \(bind: appId)"
            : "SELECT i.* FROM notification_inbox i WHERE app_id = \(bind: appId)"
        if let id = filter.originalTransactionId { query += " AND original_transaction_id = \(bind: id)" }
        if let type = filter.notificationType { query += " AND notification_type = \(bind: type)" }
        if let state = filter.state { query += " AND state = \(bind: state.rawValue)" }
        if let subtype = filter.subtype { query += " AND subtype = \(bind: subtype)" }
        if let from = filter.receivedFrom { query += " AND received_at >= \(bind: from.millisecondsSince1970)" }
        if let before = filter.receivedBefore { query += " AND received_at < \(bind: before.millisecondsSince1970)" }
        query += " ORDER BY i.id DESC LIMIT \(bind: max(0, min(filter.limit, 1000)))"
        let finalQuery = query
        return try await backend.read { db in try await Self.inboxNotifications(try await db.raw(finalQuery).all(), db) }
    }

    public func notification(id: Int64) async throws -> InboxNotification? {
        try await backend.read { db in
            try await Self.inboxNotifications(
                try await db.raw(
                    "SELECT i.*, b.body FROM notification_inbox i LEFT JOIN notification_bodies b ON b.id = i.id WHERE i.id = \(bind: id)"
                ).all(), db
            ).first
        }
    }

    /// Stores the bodies of inbox rows just inserted (`notification_bodies`, apart from the rows
    /// whose state changes), already in their stored form (``CompactSignedText``).
    static func insertBodies(_ bodies: [(id: Int64, body: String)], _ db: any SQLDatabase) async throws {
        for chunk in bodies.chunked(by: 100) {
            var query: SQLQueryString = "INSERT INTO notification_bodies (id, body) VALUES "
            for (position, row) in chunk.enumerated() {
                query += (position == 0 ? "" : ", ") + "(\(bind: row.id), \(bind: row.body))"
            }
            try await db.raw(query).run()
        }
    }

    /// The bodies of the inbox rows `ids`.
    static func bodies(ids: [Int64], _ db: any SQLDatabase) async throws -> [Int64: String] {
        var bodies: [Int64: String] = [:]
        for chunk in ids.chunked(by: 500) {
            var query: SQLQueryString = "SELECT id, body FROM notification_bodies WHERE id IN ("
            for (position, id) in chunk.enumerated() { query += (position == 0 ? "" : ", ") + "\(bind: id)" }
            let rows = try await db.raw(query + ")").all()
            let texts = try await expandedSignedTexts(try rows.map { try $0.string("body") }, db)
            for (row, text) in zip(rows, texts) { bodies[try row.int64("id")] = text }
        }
        return bodies
    }

    /// Rows of the discardable states only (rejected, duplicate: ``discardableStates``), which
    /// their outcome listed apart: no index of the inbox is by state.
    public func purgeNotifications(states: Set<InboxState>, receivedBefore cutoff: Date, limit: Int) async throws -> Int {
        let names = states.intersection(Self.discardableStates).map(\.rawValue).sorted()
        guard !names.isEmpty else { return 0 }
        return try await backend.transaction { db in
            let ids = try await db.raw(
                """
                SELECT d.id FROM inbox_discardable d JOIN notification_inbox i ON i.id = d.id
                WHERE d.received_at < \(bind: cutoff.millisecondsSince1970) AND i.state IN (
                """ + Self.list(names) + ") ORDER BY d.id LIMIT \(bind: max(1, limit))"
            ).all().map { try $0.int64("id") }
            for chunk in ids.chunked(by: 500) {
                let list = Self.list(chunk)
                try await db.raw("DELETE FROM notification_inbox WHERE id IN (" + list + ")").run()
                try await db.raw("DELETE FROM notification_bodies WHERE id IN (" + list + ")").run()
                try await db.raw("DELETE FROM inbox_discardable WHERE id IN (" + list + ")").run()
            }
            return ids.count
        }
    }

    /// The states whose rows retention may remove, kept listed in `inbox_discardable`.
    static let discardableStates: Set<InboxState> = [.rejected, .duplicate]

    public func requeueFailedNotification(appId: String, id: Int64) async throws {
        try await backend.transaction { db in
            let rows = try await db.raw(
                """
                UPDATE notification_inbox SET state = \(bind: InboxState.pending.rawValue), attempts = 0
                WHERE id = \(bind: id) AND app_id = \(bind: appId) AND state = \(bind: InboxState.failed.rawValue)
                RETURNING id, version, original_transaction_id
                """
            ).all()
            try await Self.enqueue(
                try rows.map { row in
                    let version = NotificationVersion(rawValue: try row.int("version")) ?? .v1
                    return (appId, try row.int64("id"), Self.queueChain(version, try row.optionalString("original_transaction_id")))
                }, db)
        }
    }

    public func lastReceivedAt(appId: String) async throws -> Date? {
        // The maximum of an index column: one step down the index, however long the inbox.
        try await backend.read { db in
            let row = try await db.raw("SELECT MAX(received_at) AS latest FROM notification_inbox WHERE app_id = \(bind: appId)").first()
            return try row?.decode(column: "latest", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        }
    }

    public func pendingCount() async throws -> Int {
        try await backend.read { db in
            try await db.raw(
                "SELECT COUNT(*) AS pending FROM inbox_queue"
            ).first()?.int("pending") ?? 0
        }
    }

    public func oldestPendingReceivedAt() async throws -> Date? {
        // Ids grow with arrival: the queue's smallest id is its oldest row, one look-up away.
        try await backend.read { db in
            let row = try await db.raw(
                "SELECT received_at FROM notification_inbox WHERE id = (SELECT MIN(id) FROM inbox_queue)"
            ).first()
            return try row?.decode(column: "received_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        }
    }

    /// Inbox rows, with their bodies when the rows hold them (the headers of compacted ones read first).
    static func inboxNotifications(_ rows: [any SQLRow], _ db: any SQLDatabase) async throws -> [InboxNotification] {
        let bodies = try await expandedSignedTexts(try rows.map { try $0.contains(column: "body") ? $0.optionalString("body") : nil }, db)
        return try zip(rows, bodies).map { row, body in try inboxNotification(row, body: body) }
    }

    /// An inbox row; its body is `body`, or the row's `body` column (joined from
    /// `notification_bodies`), or empty when it was not read.
    static func inboxNotification(_ row: any SQLRow, body: String? = nil) throws -> InboxNotification {
        let state = InboxState(rawValue: try row.string("state")) ?? .pending
        let type = try row.optionalString("notification_type")
        let uuid = try row.optionalString("notification_uuid")
        let chain = try row.optionalString("original_transaction_id")
        let metadata: NotificationMetadata? =
            state == .pending && type == nil && uuid == nil && chain == nil
            ? nil
            : NotificationMetadata(
                notificationUUID: uuid, notificationType: type, subtype: try row.optionalString("subtype"),
                originalTransactionId: chain, signedDate: try row.optionalDate("signed_at"),
                environment: try row.optionalString("environment")
            )
        guard let version = NotificationVersion(rawValue: try row.int("version")) else {
            throw StoreError(code: .corruptRow, message: "inbox row version \(try row.int("version")) is unknown")
        }
        var notification = InboxNotification(
            id: try row.int64("id"), appId: try row.string("app_id"), idempotencyKey: try row.string("idempotency_key"),
            version: version, body: try body ?? (row.contains(column: "body") ? row.optionalString("body") : nil) ?? "",
            headers: try StoreCoding.decode([String: String].self, from: try row.string("headers"), column: "headers"),
            receivedAt: try row.date("received_at"), state: state, failureReason: try row.optionalString("failure_reason"),
            attempts: try row.int("attempts"), metadata: metadata
        )
        notification.traceContext = row.contains(column: "trace_context") ? try row.optionalString("trace_context") : nil
        return notification
    }
}
