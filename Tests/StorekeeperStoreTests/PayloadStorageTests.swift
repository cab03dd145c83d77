import Foundation
import SQLKit
import Testing

@testable import StorekeeperStore

/// Signed payloads do not compress: PostgreSQL keeps them out of line without trying.
@Suite("Signed payloads' storage")
struct PayloadStorageTests {
    @Test(
        "on PostgreSQL the inbox bodies and the ledger's signed payloads are stored uncompressed, and read back whole",
        arguments: TestBackend.available.filter { $0 == .postgresql })
    func uncompressed(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let storage = try await store.backend.read { db in
                try await db.raw(
                    """
                    SELECT c.relname AS relation, a.attname AS name, a.attstorage::text AS storage FROM pg_attribute a
                    JOIN pg_class c ON c.oid = a.attrelid
                    WHERE (c.relname, a.attname) IN (('notification_bodies', 'body'), ('ledger', 'raw'), ('ledger', 'fact'))
                    ORDER BY 1, 2
                    """
                ).all().map {
                    "\(try $0.decode(column: "relation", as: String.self)).\(try $0.decode(column: "name", as: String.self)) \(try $0.decode(column: "storage", as: String.self))"
                }
            }
            // `e`: external, uncompressed; `x`: extended, the default (the ledger's facts are JSON, which compresses).
            #expect(storage == ["ledger.fact x", "ledger.raw e", "notification_bodies.body e"])
            let body = #"{"signedPayload":""# + String(repeating: "eyJhbGciOiJFUzI1NiJ9", count: 1_000) + #""}"#
            let row = InboxNotification(appId: "a", idempotencyKey: "k", version: .v2, body: body, receivedAt: StoreContractTests.t0)
            guard case .inserted(let id) = try await store.receive(row) else { throw StoreError(code: .corruptRow, message: "not inserted") }
            #expect(try await store.notification(id: id)?.body == body)
        }
    }
}
