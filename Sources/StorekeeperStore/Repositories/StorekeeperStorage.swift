import Foundation

/// Everything the server stores, behind one value: what `buildApplication` takes.
public protocol StorekeeperStorage: AppRepository, CustomerRepository, LedgerRepository, NotificationInbox, EventLog,
    JobQueue, AuditLog, ReconciliationQueries
{
    /// Which backend this is (`sqlite`, `postgresql`), for logs and `/health`.
    var backendName: String { get }
    /// Brings the schema up to date; returns the versions applied now.
    @discardableResult
    func migrate() async throws -> [Int]
    /// The schema version in the database (0 when empty).
    func schemaVersion() async throws -> Int
    /// A cheap round trip, for `/health`.
    func ping() async throws
}
