import Foundation

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
