import Foundation

/// What the reconciliation scheduler asks the store beyond the job queue: which chains the
/// ledger knows (to plan looks at Apple) and the last job of a kind (where the previous sweep
/// stopped).
public protocol ReconciliationQueries: Sendable {
    /// Every original transaction id the app's ledger names, sorted.
    func knownChains(appId: String) async throws -> [String]
    /// The original transaction ids with ledger entries recorded at or after `date`, sorted.
    func knownChains(appId: String, recordedSince date: Date) async throws -> [String]
    /// The app's job of `kind` in `state` with the latest `runAt`, if any.
    func latestJob(appId: String, kind: String, state: JobState) async throws -> JobRecord?
    /// The idempotency keys of the app's pending jobs of `kind`.
    func pendingJobKeys(appId: String, kind: String) async throws -> Set<String>
    /// The app's jobs of `kind`, oldest `runAt` first, at most `limit`.
    func jobs(appId: String, kind: String, limit: Int) async throws -> [JobRecord]
}
