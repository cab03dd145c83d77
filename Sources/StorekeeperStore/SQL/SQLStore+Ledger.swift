import Foundation
import SQLKit

extension SQLStore {
    @discardableResult
    public func apply(_ changeset: Changeset) async throws -> ChangesetResult {
        try await backend.transaction { db in
            let appId = changeset.appId
            let now = changeset.at.millisecondsSince1970
            if let version = changeset.offeringVersion {
                try await Self.saveOfferingVersion(version, appId: appId, at: now, db)
            }
            for enrolment in changeset.enrolments {
                try await db.raw(
                    """
                    INSERT INTO experiment_enrolments (app_id, experiment_id, customer_id, variant, enrolled_at)
                    VALUES (\(bind: appId), \(bind: enrolment.experimentId), \(bind: enrolment.customerId), \(bind: enrolment.variant),
                    \(bind: enrolment.enrolledAt.millisecondsSince1970))
                    ON CONFLICT (app_id, experiment_id, customer_id) DO NOTHING
                    """
                ).run()
            }
            for link in changeset.links {
                try await Self.link(link, appId: appId, at: now, db)
            }
            var newEntries = 0
            for entry in changeset.entries {
                let fact = try StoreCoding.encode(entry.fact)
                let inserted = try await db.raw(
                    """
                    INSERT INTO ledger (app_id, fact_key, kind, customer_id, original_transaction_id, transaction_id,
                    source, signed_at, fact, raw, recorded_at)
                    VALUES (\(bind: appId), \(bind: entry.key), \(bind: entry.fact.kind), \(bind: entry.customerId),
                    \(bind: entry.fact.originalTransactionId), \(bind: entry.fact.transactionId), \(bind: entry.source.rawValue),
                    \(bind: entry.fact.signedDate?.millisecondsSince1970), \(bind: fact), \(bind: entry.raw), \(bind: entry.recordedAt.millisecondsSince1970))
                    ON CONFLICT (app_id, fact_key) DO NOTHING RETURNING id
                    """
                ).first()
                if inserted != nil { newEntries += 1 }
            }
            var newEvents = 0
            for event in changeset.events where try await Self.insertEvent(event, appId: appId, now: now, db) {
                newEvents += 1
            }
            for job in changeset.jobs {
                try await db.raw(
                    """
                    INSERT INTO jobs (app_id, kind, payload, run_at, idempotency_key, state, attempts)
                    VALUES (\(bind: appId), \(bind: job.kind), \(bind: job.payload), \(bind: job.runAt.millisecondsSince1970),
                    \(bind: job.idempotencyKey), \(bind: JobState.pending.rawValue), 0)
                    ON CONFLICT (app_id, idempotency_key) DO NOTHING
                    """
                ).run()
            }
            for entry in changeset.audit {
                try await db.raw(
                    """
                    INSERT INTO audit_log (app_id, actor, action, customer_id, reason, details, at)
                    VALUES (\(bind: appId), \(bind: entry.actor), \(bind: entry.action), \(bind: entry.customerId),
                    \(bind: entry.reason), \(bind: entry.detailsJSON), \(bind: entry.at.millisecondsSince1970))
                    """
                ).run()
            }
            if let outcome = changeset.inboxOutcome {
                let metadata = outcome.metadata
                try await db.raw(
                    """
                    UPDATE notification_inbox SET state = \(bind: outcome.state.rawValue), failure_reason = \(bind: outcome.failureReason),
                    processed_at = \(bind: outcome.processedAt.millisecondsSince1970), lease_owner = NULL, lease_until = NULL,
                    notification_uuid = \(bind: metadata?.notificationUUID?.lowercased()), notification_type = \(bind: metadata?.notificationType),
                    subtype = \(bind: metadata?.subtype), original_transaction_id = \(bind: metadata?.originalTransactionId),
                    signed_at = \(bind: metadata?.signedDate?.millisecondsSince1970), environment = \(bind: metadata?.environment)
                    WHERE id = \(bind: outcome.inboxId) AND app_id = \(bind: appId)
                    """
                ).run()
            }
            return ChangesetResult(newEntries: newEntries, newEvents: newEvents)
        }
    }

    public func ledger(appId: String, transactionId: String) async throws -> [LedgerEntry] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM ledger WHERE app_id = \(bind: appId) AND transaction_id = \(bind: transactionId) ORDER BY signed_at, id
                """
            ).all().map { try self.ledgerEntry($0) }
        }
    }

    public func ledger(appId: String, after: Int64, through: Int64) async throws -> [LedgerEntry] {
        try await backend.read { db in
            try await db.raw("SELECT * FROM ledger WHERE app_id = \(bind: appId) AND id > \(bind: after) AND id <= \(bind: through) ORDER BY id")
                .all().map { try self.ledgerEntry($0) }
        }
    }

    public func ledgerVersion(appId: String) async throws -> LedgerVersion {
        try await backend.read { db in
            let row = try await db.raw("SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS last FROM ledger WHERE app_id = \(bind: appId)").first()
            return LedgerVersion(
                count: try row?.decode(column: "n", as: Int.self) ?? 0, lastId: try row?.decode(column: "last", as: Int64.self) ?? 0)
        }
    }

    public func ledger(appId: String) async throws -> [LedgerEntry] {
        try await backend.read { db in
            try await db.raw("SELECT * FROM ledger WHERE app_id = \(bind: appId) ORDER BY id").all().map { try self.ledgerEntry($0) }
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
            ).all().map { try self.ledgerEntry($0) }
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
            ).all().map { try self.ledgerEntry($0) }
        }
    }

    func ledgerEntry(_ row: any SQLRow) throws -> LedgerEntry {
        let id = try row.int64("id")
        return LedgerEntry(
            id: id, appId: try row.string("app_id"), key: try row.string("fact_key"),
            fact: try factCache.fact(id: id) { try StoreCoding.decode(LedgerFact.self, from: try row.string("fact"), column: "fact") },
            customerId: try row.optionalString("customer_id"), source: FactSource(rawValue: try row.string("source")),
            raw: try row.optionalString("raw"), recordedAt: try row.date("recorded_at"))
    }

    public func eventKeys(appId: String, originalTransactionId: String) async throws -> Set<String> {
        try await backend.read { db in
            Set(
                try await db.raw(
                    "SELECT idempotency_key FROM events WHERE app_id = \(bind: appId) AND original_transaction_id = \(bind: originalTransactionId)"
                ).all().map { try $0.string("idempotency_key") })
        }
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
            action: try row.string("action"), customerId: try row.optionalString("customer_id"),
            reason: try row.optionalString("reason"), details: AuditEntry.details(json: try row.string("details")), at: try row.date("at")
        )
    }
}
