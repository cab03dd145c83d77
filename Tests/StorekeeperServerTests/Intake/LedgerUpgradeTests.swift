import Crypto
import Foundation
import HummingbirdTesting
import Logging
import SQLKit
import SubscriptionEngine
import Testing

@testable import StorekeeperApps
@testable import StorekeeperJobs
@testable import StorekeeperServer
@testable import StorekeeperStore

/// A database the previous release wrote (schema 3, ledger keyed by a digest of the engine's
/// encoding, one transaction recorded twice after an encoding change) is upgraded in place.
@Suite("Upgrading the ledger's keys")
struct LedgerUpgradeTests {
    /// The key the previous release gave a fact: its kind, Apple's id and a SHA-256 of the
    /// fact's JSON as the store encodes it.
    static func previousKey(kind: String, id: String, json: String) -> String {
        let digest = SHA256.hash(data: Data(json.utf8)).map { String(format: "%02x", $0) }.joined()
        return "\(kind):\(id):\(digest)"
    }

    /// Rewrites a current database into what the previous release left: old keys, an extra
    /// copy of `duplicateOf`'s fact under the key an older encoding gave it, schema version 3.
    static func downgrade(_ store: SQLStore, duplicateOf transactionId: String) async throws {
        try await store.backend.transaction { db in
            for row in try await db.raw("SELECT id, kind, transaction_id, original_transaction_id, fact FROM ledger").all() {
                let id =
                    try row.decode(column: "transaction_id", as: String?.self) ?? row.decode(column: "original_transaction_id", as: String?.self)
                    ?? "-"
                let key = previousKey(
                    kind: try row.decode(column: "kind", as: String.self), id: id, json: try row.decode(column: "fact", as: String.self))
                try await db.raw("UPDATE ledger SET fact_key = \(bind: key) WHERE id = \(bind: try row.decode(column: "id", as: Int64.self))").run()
            }
            let original = try #require(
                try await db.raw(
                    """
                    SELECT * FROM ledger WHERE kind = 'purchase' AND transaction_id = \(bind: transactionId) ORDER BY id LIMIT 1
                    """
                ).first())
            // The same transaction as an older engine encoded it (a field since renamed).
            let json = try original.decode(column: "fact", as: String.self).replacingOccurrences(
                of: #"{"_0":{"#, with: #"{"_0":{"isFamilyShared":false,"#)
            try await db.raw(
                """
                INSERT INTO ledger (app_id, fact_key, kind, customer_id, original_transaction_id, transaction_id, source, signed_at, fact, raw, recorded_at)
                VALUES (\(bind: try original.decode(column: "app_id", as: String.self)), \(bind: previousKey(kind: "purchase", id: transactionId, json: json)),
                'purchase', NULL, \(bind: try original.decode(column: "original_transaction_id", as: String?.self)), \(bind: transactionId),
                'appStoreServerAPI', \(bind: try original.decode(column: "signed_at", as: Int64?.self)), \(bind: json), NULL,
                \(bind: try original.decode(column: "recorded_at", as: Int64.self)))
                """
            ).run()
            // Back to schema 3: what the steps since then made goes too.
            try await db.raw("DELETE FROM schema_migrations WHERE version >= 4").run()
            try await db.raw("DROP TABLE dashboard_users").run()
            try await db.raw("DROP TABLE dashboard_sessions").run()
            try await db.raw("DROP INDEX audit_customer").run()
            try await db.raw("DROP INDEX customers_recent").run()
            try await db.raw("DROP INDEX inbox_app_received").run()
            try await db.raw("DROP INDEX jobs_kind").run()
            // The inbox's bodies back in its rows (schema 12 keeps them apart).
            try await db.raw("ALTER TABLE notification_inbox ADD COLUMN body TEXT NOT NULL DEFAULT ''").run()
            try await db.raw(
                "UPDATE notification_inbox SET body = (SELECT b.body FROM notification_bodies b WHERE b.id = notification_inbox.id)"
            ).run()
            for table in [
                "event_deliveries", "delivery_attempts", "disabled_destinations", "problems", "webhooks", "server_keys", "offering_versions",
                "experiment_enrolments", "notification_bodies", "app_account_tokens", "experiment_outcomes",
            ] {
                try await db.raw("DROP TABLE \(unsafeRaw: table)").run()
            }
        }
    }

    @Test(
        "the previous release's ledger is re-keyed with no duplicate rows, and the same facts again add no row and no event",
        arguments: ServerBackend.databases)
    func upgrade(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let t0 = Fixture.t0
            let day = Fixture.day
            let first = try SignedData.transaction(id: "5001", original: "5001", purchase: t0, expires: t0 + 30 * day, signed: t0 + 60)
            let renewed = try SignedData.transaction(
                id: "5002", original: "5001", purchase: t0 + 30 * day, expires: t0 + 60 * day, signed: t0 + 30 * day)
            let renewal = try SignedData.renewal(original: "5001", autoRenew: true, signed: t0 + 30 * day)
            harness.clock.set(t0 + 120)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            harness.clock.set(t0 + 30 * day + 60)
            let renew = try SignedData.notification(harness.ca, type: "DID_RENEW", signed: t0 + 30 * day, transaction: renewed, renewal: renewal)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: renew).status == 200)
            try await harness.processor.drain()
            let grant = #"{"productId": "pro.lifetime", "grantId": "support-1", "reason": "outage"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            let revoke = #"{"action": "revoke", "transactionId": "grant:support-1", "reason": "granted by mistake"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/grants", key: Fixture.alphaAdmin, body: revoke).status == 201)

            let ledger = try await harness.store.ledger(appId: "alpha", customerId: "carol")
            let events = try await harness.store.events(appId: "alpha", customerId: "carol", limit: 100)
            let state = try await client.call(.get, "/v1/apps/alpha/customers/carol", key: Fixture.alphaKey).text
            #expect(ledger.count == 5)  // two transactions, a renewal info, a grant, its revocation

            let database = try #require(harness.store as? SQLStore)
            try await Self.downgrade(database, duplicateOf: "5001")
            #expect(try await harness.store.schemaVersion() == 3)
            #expect(try await harness.store.ledger(appId: "alpha", customerId: "carol").count == 6)
            #expect(
                try await harness.store.migrate() == Array(4...SQLStore.latestSchemaVersion))

            let upgraded = try await harness.store.ledger(appId: "alpha", customerId: "carol")
            #expect(upgraded.map(\.key) == ledger.map(\.key))
            #expect(upgraded.allSatisfy { $0.key == LedgerEntry.key(for: $0.fact) })
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/carol", key: Fixture.alphaKey).text == state)

            // The same facts again, from the app, from reconciliation and from the operator.
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            var logger = Logger(label: "test.upgrade")
            logger.logLevel = .critical
            let runner = JobRunner(
                apps: try AppDirectory(configuration: harness.configuration), store: harness.store, clients: AppleClients(),
                clock: { harness.clock.now }, logger: logger)
            let app = try #require(try AppDirectory(configuration: harness.configuration).apps["alpha"])
            try await runner.record(
                app: app, signedTransactions: [try harness.ca.signTransaction(first), try harness.ca.signTransaction(renewed)],
                signedRenewals: [try harness.ca.signRenewalInfo(renewal)], source: .appStoreServerAPI, now: harness.clock.now)
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            #expect(try await harness.store.ledger(appId: "alpha", customerId: "carol").map(\.key) == ledger.map(\.key))
            let after = try await harness.store.events(appId: "alpha", customerId: "carol", limit: 100)
            #expect(after.map(\.idempotencyKey) == events.map(\.idempotencyKey))
        }
    }
}
