import Foundation

/// Received server notifications, stored raw before the server answers, then processed.
public protocol NotificationInbox: Sendable {
    /// Stores a notification durably; an exact repeat returns the existing row.
    func receive(_ notification: InboxNotification) async throws -> InboxInsertion
    /// Leases up to `limit` pending rows to `owner` until `leaseUntil`, taking each app's oldest
    /// rows in turn so that one app's backlog never holds back another's; rows leased by
    /// another owner whose lease has not run out at `now` are skipped. Each claim counts as an
    /// attempt.
    func claimPending(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [InboxNotification]
    /// Frees every lease (at start, when this process is the only one using the store).
    func releaseLeases() async throws
    /// Whether a notification with this `notificationUUID` was already processed, other than `exceptId`.
    func isProcessed(appId: String, notificationUUID: String, exceptId: Int64) async throws -> Bool
    /// The app's inbox rows, newest first (without bodies unless the filter asks for them).
    func notifications(appId: String, filter: NotificationFilter) async throws -> [InboxNotification]
    /// One row.
    func notification(id: Int64) async throws -> InboxNotification?
    /// Puts a failed row of the app back in the queue with no attempts counted.
    func requeueFailedNotification(appId: String, id: Int64) async throws
    /// Removes the V1 `password` (the app's shared secret) from bodies and ledger copies an
    /// earlier version stored with it; returns how many rows changed.
    func removeStoredV1Passwords() async throws -> Int
    /// How many rows are pending, across apps.
    func pendingCount() async throws -> Int
    /// Deletes up to `limit` rows in `states` received before `cutoff` (retention of rejected
    /// and duplicate rows); returns how many went.
    func purgeNotifications(states: Set<InboxState>, receivedBefore cutoff: Date, limit: Int) async throws -> Int
}
