import Foundation
import SQLKit

extension SQLStore {
    @discardableResult
    public func enqueue(_ job: JobRecord) async throws -> Int64 {
        // A job planned again under the same key (each tick plans the periodic ones) is found
        // by a read, without taking the single writer.
        if let id = try await backend.read({ db in
            try await db.raw("SELECT id FROM jobs WHERE app_id = \(bind: job.appId) AND idempotency_key = \(bind: job.idempotencyKey)")
                .first()?.int64("id")
        }) {
            return id
        }
        return try await backend.transaction { db in
            if let row = try await db.raw(
                """
                INSERT INTO jobs (app_id, kind, payload, run_at, idempotency_key, state, attempts)
                VALUES (\(bind: job.appId), \(bind: job.kind), \(bind: job.payload), \(bind: job.runAt.millisecondsSince1970),
                \(bind: job.idempotencyKey), \(bind: JobState.pending.rawValue), \(bind: 0))
                ON CONFLICT (app_id, idempotency_key) DO NOTHING RETURNING id
                """
            ).first() {
                return try row.int64("id")
            }
            guard
                let row = try await db.raw(
                    """
                    SELECT id FROM jobs WHERE app_id = \(bind: job.appId) AND idempotency_key = \(bind: job.idempotencyKey)
                    """
                ).first()
            else { throw StoreError(code: .corruptRow, message: "job vanished after a conflicting insert") }
            return try row.int64("id")
        }
    }

    public func leaseJobs(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [JobRecord] {
        let lock: SQLQueryString = backend.dialect == .postgresql ? " FOR UPDATE SKIP LOCKED" : ""
        // No job due, the answer that ends every round of the scheduler, is seen by a read.
        let due = try await backend.read { db in
            try await db.raw(
                """
                SELECT 1 AS one FROM jobs WHERE state = \(bind: JobState.pending.rawValue) AND run_at <= \(bind: now.millisecondsSince1970) LIMIT 1
                """
            ).first() != nil
        }
        guard due else { return [] }
        let jobs = try await backend.transaction { db in
            try await db.raw(
                """
                UPDATE jobs SET lease_owner = \(bind: owner), lease_until = \(bind: leaseUntil.millisecondsSince1970), attempts = attempts + 1
                WHERE id IN (SELECT id FROM jobs WHERE state = \(bind: JobState.pending.rawValue) AND run_at <= \(bind: now.millisecondsSince1970)
                AND (lease_until IS NULL OR lease_until < \(bind: now.millisecondsSince1970)) ORDER BY run_at, id LIMIT \(bind: max(1, limit))
                """ + lock + ") RETURNING *"
            ).all().map(Self.job)
        }
        return jobs.sorted { ($0.runAt, $0.id ?? 0) < ($1.runAt, $1.id ?? 0) }
    }

    public func completeJob(id: Int64, owner: String) async throws {
        try await backend.transaction { db in
            try await db.raw(
                """
                UPDATE jobs SET state = \(bind: JobState.done.rawValue), lease_owner = NULL, lease_until = NULL
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner)
                """
            ).run()
        }
    }

    public func failJob(id: Int64, owner: String, error: String, retryAt: Date?) async throws {
        let state = retryAt == nil ? JobState.failed : .pending
        try await backend.transaction { db in
            try await db.raw(
                """
                UPDATE jobs SET state = \(bind: state.rawValue), last_error = \(bind: error), lease_owner = NULL, lease_until = NULL,
                run_at = COALESCE(\(bind: retryAt?.millisecondsSince1970), run_at)
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner)
                """
            ).run()
        }
    }

    public func job(id: Int64) async throws -> JobRecord? {
        try await backend.read { db in
            try await db.raw("SELECT * FROM jobs WHERE id = \(bind: id)").first().map(Self.job)
        }
    }

    static func job(_ row: any SQLRow) throws -> JobRecord {
        JobRecord(
            id: try row.int64("id"), appId: try row.string("app_id"), kind: try row.string("kind"),
            payload: try row.string("payload"), runAt: try row.date("run_at"), idempotencyKey: try row.string("idempotency_key"),
            state: JobState(rawValue: try row.string("state")) ?? .pending, attempts: try row.int("attempts"),
            lastError: try row.optionalString("last_error"), leaseOwner: try row.optionalString("lease_owner"),
            leaseUntil: try row.optionalDate("lease_until")
        )
    }
}
