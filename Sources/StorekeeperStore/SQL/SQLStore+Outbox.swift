import Foundation
import SQLKit

extension SQLStore {
    static func event(_ row: any SQLRow) throws -> EventRecord {
        var event = EventRecord(
            id: try row.int64("id"), appId: try row.string("app_id"), customerId: try row.optionalString("customer_id"),
            originalTransactionId: try row.optionalString("original_transaction_id"), type: EventType(rawValue: try row.string("type")),
            details: EventDetails(json: try row.string("payload")), occurredAt: try row.date("occurred_at"),
            idempotencyKey: try row.string("idempotency_key"))
        event.traceContext = row.contains(column: "trace_context") ? try row.optionalString("trace_context") : nil
        return event
    }

    /// Inserts an event unless its key is recorded, with a pending delivery to each of its
    /// destinations (the outbox); returns whether it was new.
    static func insertEvent(_ event: EventRecord, appId: String, now: Int64, _ db: any SQLDatabase) async throws -> Bool {
        // The trace context only when tracing gave one (`trace_context`, schema step 30).
        var query: SQLQueryString = "INSERT INTO events (app_id, customer_id, original_transaction_id, type, payload, occurred_at, idempotency_key"
        query += event.traceContext == nil ? ") VALUES " : ", trace_context) VALUES "
        query += """
            (\(bind: appId), \(bind: event.customerId), \(bind: event.originalTransactionId), \(bind: event.type.rawValue),
            \(bind: event.details.json), \(bind: event.occurredAt.millisecondsSince1970), \(bind: event.idempotencyKey)
            """
        if let trace = event.traceContext { query += ", \(bind: trace))" } else { query += ")" }
        let inserted = try await db.raw(query + " ON CONFLICT (app_id, idempotency_key) DO NOTHING RETURNING id").first()
        guard let inserted else { return false }
        let eventId = try inserted.int64("id")
        for destination in Set(event.destinations).sorted() {
            try await db.raw(
                """
                INSERT INTO event_deliveries (app_id, event_id, destination, state, attempts, next_attempt_at, created_at)
                VALUES (\(bind: appId), \(bind: eventId), \(bind: destination), \(bind: DeliveryState.pending.rawValue), 0,
                \(bind: now), \(bind: now)) ON CONFLICT (event_id, destination) DO NOTHING
                """
            ).run()
        }
        return true
    }

    public func leaseDeliveries(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [OutboxDelivery] {
        let lock: SQLQueryString = backend.dialect == .postgresql ? " FOR UPDATE SKIP LOCKED" : ""
        let millis = now.millisecondsSince1970
        // Nothing due, the usual answer between bursts, is seen without taking the writer.
        let due = try await backend.read { db in
            try await db.raw(
                """
                SELECT 1 AS one FROM event_deliveries WHERE state = \(bind: DeliveryState.pending.rawValue)
                AND next_attempt_at <= \(bind: millis) LIMIT 1
                """
            ).first() != nil
        }
        guard due else { return [] }
        return try await backend.transaction { db in
            let rows = try await db.raw(
                """
                UPDATE event_deliveries SET lease_owner = \(bind: owner), lease_until = \(bind: leaseUntil.millisecondsSince1970),
                attempts = attempts + 1
                WHERE id IN (SELECT d.id FROM event_deliveries d WHERE d.state = \(bind: DeliveryState.pending.rawValue)
                AND d.next_attempt_at <= \(bind: millis) AND (d.lease_until IS NULL OR d.lease_until < \(bind: millis))
                AND NOT EXISTS (SELECT 1 FROM disabled_destinations x WHERE x.app_id = d.app_id AND x.destination = d.destination)
                ORDER BY d.next_attempt_at, d.id LIMIT \(bind: max(1, limit))
                """ + lock + ") RETURNING *"
            ).all()
            return try await Self.deliveries(rows, db)
        }.sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
    }

    /// Deliveries from their rows, each with its event.
    static func deliveries(_ rows: [any SQLRow], _ db: any SQLDatabase) async throws -> [OutboxDelivery] {
        guard !rows.isEmpty else { return [] }
        let eventIds = try rows.map { try $0.int64("event_id") }
        var list: SQLQueryString = "\(bind: eventIds[0])"
        for id in eventIds.dropFirst() { list += ", \(bind: id)" }
        let events = try await db.raw("SELECT * FROM events WHERE id IN (" + list + ")").all().map(Self.event)
        let byId = Dictionary(events.map { ($0.id ?? 0, $0) }, uniquingKeysWith: { first, _ in first })
        return try rows.compactMap { row in
            guard let event = byId[try row.int64("event_id")] else { return nil }
            let stateText = try row.string("state")
            guard let state = DeliveryState(rawValue: stateText) else {
                throw StoreError(code: .corruptRow, message: "delivery with unknown state \(stateText.prefix(32))")
            }
            return OutboxDelivery(
                id: try row.int64("id"), appId: try row.string("app_id"), destination: try row.string("destination"), state: state,
                attempts: Int(try row.int64("attempts")), nextAttemptAt: try row.date("next_attempt_at"),
                lastStatus: try row.decode(column: "last_status", as: Int?.self), lastError: try row.optionalString("last_error"),
                deliveredAt: try row.decode(column: "delivered_at", as: Int64?.self).map { Date(millisecondsSince1970: $0) },
                createdAt: try row.date("created_at"), event: event)
        }
    }

    public func releaseDeliveryLeases() async throws {
        try await backend.transaction { db in
            try await db.raw("UPDATE event_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL").run()
        }
    }

    public func finishDelivery(id: Int64, owner: String, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws {
        let at = attempt.at.millisecondsSince1970
        let (state, next, delivered): (DeliveryState, Int64?, Int64?) =
            switch outcome {
            case .delivered: (.delivered, nil, at)
            case .retry(let date): (.pending, date.millisecondsSince1970, nil)
            case .dead: (.dead, nil, nil)
            }
        try await backend.transaction { db in
            let updated = try await db.raw(
                """
                UPDATE event_deliveries SET state = \(bind: state.rawValue), next_attempt_at = COALESCE(\(bind: next), next_attempt_at),
                delivered_at = \(bind: delivered), last_status = \(bind: attempt.status), last_error = \(bind: attempt.error),
                lease_owner = NULL, lease_until = NULL
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner) RETURNING id
                """
            ).first()
            guard updated != nil else { return }
            try await db.raw(
                """
                INSERT INTO delivery_attempts (delivery_id, at, status, error, duration_ms)
                VALUES (\(bind: id), \(bind: at), \(bind: attempt.status), \(bind: attempt.error), \(bind: attempt.durationMilliseconds))
                """
            ).run()
        }
    }

    public func postponeDeliveries(ids: [Int64], owner: String, until: Date) async throws {
        guard let first = ids.first else { return }
        var bound: SQLQueryString = "\(bind: first)"
        for id in ids.dropFirst() { bound += ", \(bind: id)" }
        let list = bound
        try await backend.transaction { db in
            try await db.raw(
                """
                UPDATE event_deliveries SET next_attempt_at = \(bind: until.millisecondsSince1970),
                attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, lease_owner = NULL, lease_until = NULL
                WHERE lease_owner = \(bind: owner) AND state = \(bind: DeliveryState.pending.rawValue) AND id IN (
                """ + list + ")"
            ).run()
        }
    }

    public func deliveries(appId: String, destination: String, state: DeliveryState?, limit: Int) async throws -> [OutboxDelivery] {
        try await backend.read { db in
            var query: SQLQueryString = "SELECT * FROM event_deliveries WHERE app_id = \(bind: appId) AND destination = \(bind: destination)"
            if let state { query += " AND state = \(bind: state.rawValue)" }
            query += " ORDER BY id DESC LIMIT \(bind: max(0, min(limit, 1000)))"
            return try await Self.deliveries(try await db.raw(query).all(), db)
        }
    }

    public func delivery(appId: String, id: Int64) async throws -> OutboxDelivery? {
        try await backend.read { db in
            let rows = try await db.raw("SELECT * FROM event_deliveries WHERE app_id = \(bind: appId) AND id = \(bind: id)").all()
            return try await Self.deliveries(rows, db).first
        }
    }

    public func attempts(deliveryId: Int64) async throws -> [DeliveryAttempt] {
        try await backend.read { db in
            try await db.raw("SELECT * FROM delivery_attempts WHERE delivery_id = \(bind: deliveryId) ORDER BY id").all().map { row in
                DeliveryAttempt(
                    deliveryId: try row.int64("delivery_id"), at: try row.date("at"), status: try row.decode(column: "status", as: Int?.self),
                    error: try row.optionalString("error"), durationMilliseconds: Int(try row.int64("duration_ms")))
            }
        }
    }

    public func replayDeliveries(appId: String, destination: String, id: Int64?, now: Date) async throws -> Int {
        try await backend.transaction { db in
            var query: SQLQueryString = """
                UPDATE event_deliveries SET state = \(bind: DeliveryState.pending.rawValue), attempts = 0,
                next_attempt_at = \(bind: now.millisecondsSince1970), lease_owner = NULL, lease_until = NULL
                WHERE app_id = \(bind: appId) AND destination = \(bind: destination) AND state = \(bind: DeliveryState.dead.rawValue)
                """
            if let id { query += " AND id = \(bind: id)" }
            return try await db.raw(query + " RETURNING id").all().count
        }
    }

    public func disableDestination(appId: String, destination: String, reason: String, at: Date) async throws {
        try await backend.transaction { db in
            try await db.raw(
                """
                INSERT INTO disabled_destinations (app_id, destination, reason, at)
                VALUES (\(bind: appId), \(bind: destination), \(bind: reason), \(bind: at.millisecondsSince1970))
                ON CONFLICT (app_id, destination) DO NOTHING
                """
            ).run()
        }
    }

    public func enableDestination(appId: String, destination: String) async throws {
        try await backend.transaction { db in
            try await db.raw("DELETE FROM disabled_destinations WHERE app_id = \(bind: appId) AND destination = \(bind: destination)").run()
        }
    }

    public func disabledDestinations(appId: String) async throws -> [String: String] {
        try await backend.read { db in
            var result: [String: String] = [:]
            for row in try await db.raw("SELECT destination, reason FROM disabled_destinations WHERE app_id = \(bind: appId)").all() {
                result[try row.string("destination")] = try row.string("reason")
            }
            return result
        }
    }

    public func deliveryCounts(appId: String) async throws -> [String: [DeliveryState: Int]] {
        try await backend.scan { db in
            var result: [String: [DeliveryState: Int]] = [:]
            for row in try await db.raw(
                "SELECT destination, state, COUNT(*) AS n FROM event_deliveries WHERE app_id = \(bind: appId) GROUP BY destination, state"
            ).all() {
                guard let state = DeliveryState(rawValue: try row.string("state")) else { continue }
                result[try row.string("destination"), default: [:]][state] = Int(try row.int64("n"))
            }
            return result
        }
    }

    @discardableResult
    public func saveWebhook(_ webhook: StoredWebhook) async throws -> Bool {
        @Sendable func text(_ list: [String]?) -> String? {
            list.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        return try await backend.transaction { db in
            let existed =
                try await db.raw("SELECT id FROM webhooks WHERE app_id = \(bind: webhook.appId) AND id = \(bind: webhook.id)").first() != nil
            try await db.raw(
                """
                INSERT INTO webhooks (app_id, id, url, secrets, events, environments, created_at, updated_at)
                VALUES (\(bind: webhook.appId), \(bind: webhook.id), \(bind: webhook.url), \(bind: text(webhook.secrets) ?? "[]"),
                \(bind: text(webhook.events)), \(bind: text(webhook.environments)), \(bind: webhook.createdAt.millisecondsSince1970),
                \(bind: webhook.updatedAt.millisecondsSince1970))
                ON CONFLICT (app_id, id) DO UPDATE SET url = excluded.url, secrets = excluded.secrets, events = excluded.events,
                environments = excluded.environments, updated_at = excluded.updated_at
                """
            ).run()
            return !existed
        }
    }

    @discardableResult
    public func deleteWebhook(appId: String, id: String) async throws -> Bool {
        try await backend.transaction { db in
            try await db.raw("DELETE FROM webhooks WHERE app_id = \(bind: appId) AND id = \(bind: id) RETURNING id").first() != nil
        }
    }

    public func storedWebhooks(appId: String?) async throws -> [StoredWebhook] {
        try await backend.read { db in
            var query: SQLQueryString = "SELECT * FROM webhooks"
            if let appId { query += " WHERE app_id = \(bind: appId)" }
            return try await db.raw(query + " ORDER BY app_id, id").all().map { row in
                func list(_ column: String) throws -> [String]? {
                    try row.optionalString(column).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
                }
                return StoredWebhook(
                    appId: try row.string("app_id"), id: try row.string("id"), url: try row.string("url"), secrets: try list("secrets") ?? [],
                    events: try list("events"), environments: try list("environments"), createdAt: try row.date("created_at"),
                    updatedAt: try row.date("updated_at"))
            }
        }
    }
}
