import Foundation
import StorekeeperStore
import Testing

@testable import StorekeeperInbox
@testable import StorekeeperServer

/// Apple sends a change in both versions at once to an app that asks for both: the V2 row's
/// signed renewal info is weighed before the V1 row's receipt.
@Suite("Inbox: signed notifications first")
struct SignedFirstTests {
    @Test("a batch's V2 rows come before its V1 rows, each in the order received")
    func order() {
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        let rows = [(1, NotificationVersion.v1), (2, .v2), (3, .v1), (4, .v2), (5, .v2)].map { id, version in
            InboxNotification(id: Int64(id), appId: "a", idempotencyKey: "k\(id)", version: version, body: "{}", receivedAt: at)
        }
        #expect(InboxProcessor.signedFirst(rows).compactMap(\.id) == [2, 4, 5, 1, 3])
        #expect(InboxProcessor.signedFirst([]).isEmpty)
    }
}
