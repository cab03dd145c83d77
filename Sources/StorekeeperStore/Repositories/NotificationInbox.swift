import Foundation

/// Received server notifications, stored raw before the server answers, then processed.
public protocol NotificationInbox: Sendable {
    /// Stores a notification durably; an exact repeat returns the existing row.
    func receive(_ notification: InboxNotification) async throws -> InboxInsertion
    /// Leases up to `limit` pending rows (oldest first) to `owner` until `leaseUntil`; rows
    /// leased by another owner whose lease has not run out at `now` are skipped.
    func claimPending(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [InboxNotification]
    /// Frees every lease (at start, when this process is the only one using the store).
    func releaseLeases() async throws
    /// Whether a notification with this `notificationUUID` was already processed, other than `exceptId`.
    func isProcessed(appId: String, notificationUUID: String, exceptId: Int64) async throws -> Bool
    /// The app's inbox rows, newest first.
    func notifications(appId: String, filter: NotificationFilter) async throws -> [InboxNotification]
    /// One row.
    func notification(id: Int64) async throws -> InboxNotification?
    /// How many rows are pending, across apps.
    func pendingCount() async throws -> Int
}
