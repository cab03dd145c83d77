import Foundation
import HummingbirdTesting
import Logging
import StorekeeperInbox
import StorekeeperServer
import StorekeeperStore
import Testing

/// A row that cannot be processed must never hold back the others, nor be retried forever.
@Suite("Security: poison rows, attempts and retention")
struct InboxResilienceTests {
    static func row(_ app: String, body: String, version: NotificationVersion = .v2, receivedAt: Date = Fixture.t0) -> InboxNotification {
        InboxNotification(
            appId: app, idempotencyKey: InboxNotification.idempotencyKey(version: version, notificationUUID: nil, body: Data(body.utf8)),
            version: version, body: body, receivedAt: receivedAt)
    }

    @Test("rows an older version stored with U+0000 end rejected and never block another app's genuine row", arguments: ServerBackend.available)
    func poisonRowsDoNotBlock(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            for index in 0..<40 {
                let body =
                    #"{"notification_type":"DID_RENEW\u0000"# + "\(index)" + #"","password":"alpha-shared-secret","bid":"com.example.alpha\u0000"}"#
                _ = try await harness.store.receive(Self.row("alpha", body: body, version: .v1))
            }
            let genuine = try NotificationRouteSecurityTests.genuine(harness.ca)
            #expect(try await client.call(.post, "/v1/apps/gamma/notifications", body: genuine).status == 200)
            try await harness.processor.drain(batchSize: 8)
            #expect(try await harness.store.pendingCount() == 0)
            let gamma = try await harness.store.notifications(appId: "gamma", filter: NotificationFilter())
            #expect(gamma.map(\.state) == [.processed])
            let alpha = try await harness.store.notifications(appId: "alpha", filter: NotificationFilter(limit: 1000))
            #expect(alpha.count == 40 && alpha.allSatisfy { $0.state == .rejected })
            #expect(alpha.allSatisfy { $0.failureReason.map { !$0.utf8.contains(0) } == true })
        }
    }

    @Test(
        "a row claimed more than the allowed attempts is marked failed with its reason, listed, and an admin can retry it",
        arguments: ServerBackend.available)
    func failedAfterMaximumAttempts(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let posted = try await client.call(.post, "/v1/apps/alpha/notifications", body: try NotificationRouteSecurityTests.genuine(harness.ca))
            let id = try #require(posted.json["id"] as? Int)
            // A worker that crashes on the row every time: claimed, never finished.
            var instant = Fixture.t0
            for _ in 0..<3 {
                instant += 60
                #expect(try await harness.store.claimPending(limit: 10, owner: "crashing", now: instant, leaseUntil: instant + 30).count == 1)
            }
            harness.clock.set(instant + 120)
            try await harness.processor.drain(maximumAttempts: 3)
            let failed = try await client.call(.get, "/v1/apps/alpha/notifications?state=failed", key: Fixture.alphaKey)
            let rows = try #require(failed.json["notifications"] as? [[String: Any]])
            #expect(rows.count == 1)
            #expect((rows.first?["failureReason"] as? String)?.hasPrefix("abandoned") == true)
            #expect(try await harness.store.pendingCount() == 0)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications/\(id)/retry", key: Fixture.alphaKey).status == 403)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications/\(id)/retry", key: Fixture.alphaAdmin).status == 202)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications/\(id)/retry", key: Fixture.alphaAdmin).status == 409)
            try await harness.processor.drain(maximumAttempts: 3)
            #expect(try await harness.store.notification(id: Int64(id))?.state == .processed)
            #expect(try await client.status("alpha", "5001", key: Fixture.alphaKey) == "active")
        }
    }

    @Test("retention removes old rejected and duplicate rows and keeps processed, failed and recent ones", arguments: ServerBackend.available)
    func retention(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let old = Fixture.t0 - 40 * Fixture.day
            var ids: [InboxState: Int64] = [:]
            for (index, state) in [InboxState.rejected, .duplicate, .processed, .failed].enumerated() {
                let id = try await harness.store.receive(Self.row("alpha", body: "old-\(index)", receivedAt: old)).id
                try await harness.store.apply(
                    Changeset(appId: "alpha", at: old, inboxOutcome: InboxOutcome(inboxId: id, state: state, processedAt: old)))
                ids[state] = id
            }
            let recent = try await harness.store.receive(Self.row("alpha", body: "recent", receivedAt: Fixture.t0 - Fixture.day)).id
            try await harness.store.apply(
                Changeset(appId: "alpha", at: Fixture.t0, inboxOutcome: InboxOutcome(inboxId: recent, state: .rejected, processedAt: Fixture.t0)))
            var logger = Logger(label: "test.retention")
            logger.logLevel = .warning
            let retention = InboxRetention(store: harness.store, clock: { Fixture.t0 }, logger: logger, retentionDays: 30)
            #expect(try await retention.purge() == 2)
            #expect(try await harness.store.notification(id: ids[.rejected]!) == nil)
            #expect(try await harness.store.notification(id: ids[.duplicate]!) == nil)
            #expect(try await harness.store.notification(id: ids[.processed]!) != nil)
            #expect(try await harness.store.notification(id: ids[.failed]!) != nil)
            #expect(try await harness.store.notification(id: recent) != nil)
            #expect(try await retention.purge() == 0)
        }
    }
}
