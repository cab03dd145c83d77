import Foundation

/// A background job (a reconciliation with Apple, a webhook delivery), leased by one worker
/// at a time and idempotent on ``idempotencyKey``.
public struct JobRecord: Sendable, Hashable {
    public var id: Int64?
    public var appId: String
    /// What to do, e.g. `reconcile`.
    public var kind: String
    /// Job-specific input, JSON object text.
    public var payload: String
    /// Not before this instant.
    public var runAt: Date
    /// Unique per app: enqueuing the same key twice keeps one job.
    public var idempotencyKey: String
    public var state: JobState
    public var attempts: Int
    public var lastError: String?
    /// Who holds the lease, and until when.
    public var leaseOwner: String?
    public var leaseUntil: Date?

    public init(
        id: Int64? = nil, appId: String, kind: String, payload: String = "{}", runAt: Date, idempotencyKey: String,
        state: JobState = .pending, attempts: Int = 0, lastError: String? = nil, leaseOwner: String? = nil, leaseUntil: Date? = nil
    ) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.payload = payload
        self.runAt = runAt
        self.idempotencyKey = idempotencyKey
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
    }
}

/// Where a job stands.
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable {
    case pending
    case done
    /// Gave up after its attempts.
    case failed
}
