import Foundation
import Testing

@testable import StorekeeperStore

/// The backlog's age that `/metrics` exports (`storekeeper_inbox_oldest_pending_age_seconds`):
/// the oldest row still queued, on every backend.
@Suite("Inbox backlog age")
struct InboxBacklogTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func notification(_ body: String, app: String, at date: Date) -> InboxNotification {
        InboxNotification(
            appId: app, idempotencyKey: InboxNotification.idempotencyKey(version: .v2, notificationUUID: "U-\(body)", body: Data(body.utf8)),
            version: .v2, body: body, receivedAt: date)
    }

    @Test("the oldest pending row's arrival, across apps; none once every row has an outcome", arguments: TestBackend.available)
    func oldestPending(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            #expect(try await store.oldestPendingReceivedAt() == nil)
            let first = try await store.receive(Self.notification("first", app: "a", at: Self.t0))
            let second = try await store.receive(Self.notification("second", app: "b", at: Self.t0 + 60))
            #expect(try await store.oldestPendingReceivedAt() == Self.t0)
            try await store.apply(
                Changeset(appId: "a", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: first.id, state: .processed, processedAt: Self.t0 + 90)))
            #expect(try await store.oldestPendingReceivedAt() == Self.t0 + 60)
            try await store.apply(
                Changeset(appId: "b", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: second.id, state: .rejected, processedAt: Self.t0 + 90)))
            #expect(try await store.oldestPendingReceivedAt() == nil)
        }
    }
}
