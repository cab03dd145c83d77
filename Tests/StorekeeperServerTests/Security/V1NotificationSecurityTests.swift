import AppStoreModels
import AppStoreSimulator
import Foundation
import HummingbirdTesting
import StorekeeperStore
import Testing

/// V1 notifications are authenticated only by the app's shared secret (`password`), and their
/// JSON is unsigned. These tests attack them as someone who learned the secret would.
@Suite("Security: V1 notifications")
struct V1NotificationSecurityTests {
    /// A simulated store with one monthly subscriber (chain 7001, erin) and a V1 builder
    /// that sends alpha's shared secret.
    struct World {
        let store: SimulatedAppStore
        let builder: NotificationV1Builder
        var purchase: JWSTransactionDecodedPayload
        var truth: SubscriptionTruth

        init(harness: ServerHarness) throws {
            let t0 = Fixture.t0
            store = SimulatedAppStore(bundleId: Fixture.bundle, appAppleId: 1, environment: .sandbox)
            purchase = JWSTransactionDecodedPayload(
                originalTransactionId: "7001", transactionId: "7001", webOrderLineItemId: "97001", bundleId: Fixture.bundle,
                productId: "pro.monthly", subscriptionGroupIdentifier: "pro", purchaseDate: t0, originalPurchaseDate: t0,
                expiresDate: t0 + 30 * Fixture.day, quantity: 1, type: .autoRenewableSubscription, inAppOwnershipType: .purchased)
            purchase.environment = .sandbox
            store.record(purchase, customerId: "erin")
            truth = SubscriptionTruth(
                originalTransactionId: "7001", customerId: "erin", subscriptionGroupIdentifier: "pro", productId: "pro.monthly",
                expiresDate: t0 + 30 * Fixture.day, lastTransactionId: "7001", recentSubscriptionStartDate: t0)
            store.update(truth)
            let signer = SimulatorSigner(certificateAuthority: harness.ca, receiptAuthority: try TestReceipts.authority())
            builder = NotificationV1Builder(signer: signer, sharedSecret: "alpha-shared-secret")
        }

        func subscribedBody() throws -> [String: Any] {
            let data = try #require(
                try builder.body(
                    type: .subscribed, subtype: .initialBuy, transaction: purchase, subscription: truth, store: store, at: Fixture.t0))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
    }

    static func text(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("the shared secret is never stored, never listed, and a body is an admin read", arguments: ServerBackend.available)
    func passwordNeverPersisted(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let world = try World(harness: harness)
            let posted = try await client.call(.post, "/v1/apps/alpha/notifications", body: try Self.text(try world.subscribedBody()))
            #expect(posted.status == 200)
            let id = try #require(posted.json["id"] as? Int)
            try await harness.processor.drain()
            let row = try #require(try await harness.store.notification(id: Int64(id)))
            #expect(!row.body.contains("alpha-shared-secret") && !row.body.contains("\"password\""))
            #expect(row.body.contains("latest_receipt"))
            for entry in try await harness.store.ledger(appId: "alpha", originalTransactionId: "7001") {
                #expect(entry.raw?.contains("alpha-shared-secret") != true)
            }
            let listing = try await client.call(.get, "/v1/apps/alpha/notifications?limit=1000", key: Fixture.alphaKey)
            #expect(!listing.text.contains("latest_receipt") && !listing.text.contains("alpha-shared-secret"))
            #expect(try await client.call(.get, "/v1/apps/alpha/notifications/\(id)", key: Fixture.alphaKey).status == 403)
            #expect(try await client.call(.get, "/v1/apps/alpha/notifications/\(id)", key: Fixture.betaKey).status == 404)
            let read = try await client.call(.get, "/v1/apps/alpha/notifications/\(id)", key: Fixture.alphaAdmin)
            #expect(read.status == 200)
            #expect((read.json["body"] as? String)?.contains("latest_receipt") == true)
            #expect(!read.text.contains("alpha-shared-secret"))
            // A repeat of the same notification, password and all, is the same row.
            let again = try await client.call(.post, "/v1/apps/alpha/notifications", body: try Self.text(try world.subscribedBody()))
            #expect(again.json["id"] as? Int == id && again.json["duplicate"] as? Bool == true)
        }
    }

    @Test("with the leaked secret, unsigned JSON neither extends a signed subscription nor revokes it", arguments: ServerBackend.available)
    func unsignedJSONIsNoFact(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let world = try World(harness: harness)
            let t0 = Fixture.t0
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: try Self.text(try world.subscribedBody())).status == 200)
            try await harness.processor.drain()
            harness.clock.set(t0 + 10 * Fixture.day)
            #expect(try await client.status("alpha", "7001", key: Fixture.alphaKey) == "active")

            // The genuine signed receipt, with forged unsigned lists: a renewal until 2036, a
            // refund of the first purchase, and renewal info claiming a long grace period.
            var extended = try world.subscribedBody()
            var unified = try #require(extended["unified_receipt"] as? [String: Any])
            var infos = try #require(unified["latest_receipt_info"] as? [[String: Any]])
            var renewal = try #require(infos.first)
            renewal["transaction_id"] = "7002"
            renewal["expires_date_ms"] = "2082758400000"
            renewal["purchase_date_ms"] = "\(Int64((t0 + 29 * Fixture.day).timeIntervalSince1970 * 1000))"
            var refunded = try #require(infos.first)
            refunded["cancellation_date_ms"] = "\(Int64((t0 + Fixture.day).timeIntervalSince1970 * 1000))"
            refunded["cancellation_reason"] = "0"
            infos = [renewal, refunded]
            unified["latest_receipt_info"] = infos
            unified["pending_renewal_info"] = [
                [
                    "original_transaction_id": "7001", "product_id": "pro.monthly", "auto_renew_product_id": "pro.monthly",
                    "auto_renew_status": "1", "is_in_billing_retry_period": "1", "grace_period_expires_date_ms": "2082758400000",
                ]
            ]
            extended["unified_receipt"] = unified
            extended["notification_type"] = "DID_RENEW"
            let response = try await client.call(.post, "/v1/apps/alpha/notifications", body: try Self.text(extended))
            #expect(response.status == 200)
            try await harness.processor.drain()
            #expect(try await client.status("alpha", "7001", key: Fixture.alphaKey) == "active")
            harness.clock.set(t0 + 40 * Fixture.day)
            #expect(try await client.status("alpha", "7001", key: Fixture.alphaKey) == "expired")
            let ledger = try await harness.store.ledger(appId: "alpha", originalTransactionId: "7001")
            #expect(!ledger.contains { $0.fact.transactionId == "7002" })
        }
    }

    @Test("a V1 body without a signed receipt, or with a receipt of another app, is refused and not stored", arguments: ServerBackend.available)
    func receiptRequired(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let world = try World(harness: harness)
            var unsigned = try world.subscribedBody()
            var unified = try #require(unsigned["unified_receipt"] as? [String: Any])
            unified.removeValue(forKey: "latest_receipt")
            unsigned["unified_receipt"] = unified
            var foreign = try world.subscribedBody()
            unified["latest_receipt"] = try TestReceipts.receipt(
                bundleId: "com.example.beta", purchases: [("pro.monthly", "9", "9", Fixture.t0, Fixture.t0 + 30 * Fixture.day)],
                created: Fixture.t0)
            foreign["unified_receipt"] = unified
            var nul = try world.subscribedBody()
            nul["bid"] = "com.example.alpha\u{0}"
            for body in [unsigned, foreign, nul] {
                let response = try await client.call(.post, "/v1/apps/alpha/notifications", body: try Self.text(body))
                #expect(response.status == 400)
                #expect((response.json["error"] as? [String: Any])?["code"] as? String == "notification_refused")
            }
            #expect(try await harness.store.notifications(appId: "alpha", filter: NotificationFilter()).isEmpty)
        }
    }

    /// Found by `FuzzServer`: a date of Apple's GMT form with a 19-digit year, without its `_ms`
    /// form (which wins when present), overflowed the day arithmetic while the body was decoded,
    /// and the process died. Such a date is now no date; the signed receipt says what happened,
    /// and the row processes.
    @Test("with the leaked secret, GMT dates with absurd years and no _ms form are no dates, never a crash", arguments: ServerBackend.available)
    func absurdYears(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let world = try World(harness: harness)
            for year in ["5124095576030430970", "9223372036854775807", String(repeating: "0", count: 60) + "2020", "12020"] {
                let body = Self.replacingGMTYears(in: try world.subscribedBody(), with: year)
                let text = try Self.text(try #require(body as? [String: Any]))
                #expect(text.contains(year + "-") && !text.contains("_ms\""))
                let response = try await client.call(.post, "/v1/apps/alpha/notifications", body: text)
                #expect(response.status == 200)
            }
            try await harness.processor.drain()
            let rows = try await harness.store.notifications(appId: "alpha", filter: NotificationFilter())
            #expect(rows.count == 4 && rows.allSatisfy { $0.state == .processed })
            let ledger = try await harness.store.ledger(appId: "alpha", originalTransactionId: "7001")
            #expect(!ledger.isEmpty)
            let status = try await client.call(.get, "/v1/apps/alpha/subscriptions/7001", key: Fixture.alphaKey)
            #expect(status.status == 200)
            #expect(status.text.contains("pro.monthly"))
        }
    }

    /// `value` with the year of every `YYYY-MM-DD HH:MM:SS Etc/GMT` string in it replaced by `year`,
    /// and without the `*_ms` keys.
    static func replacingGMTYears(in value: Any, with year: String) -> Any {
        switch value {
        case let text as String where text.hasSuffix(" Etc/GMT") && text.count == 27:
            return year + text.dropFirst(4)
        case let array as [Any]:
            return array.map { replacingGMTYears(in: $0, with: year) }
        case let object as [String: Any]:
            return object.filter { !$0.key.hasSuffix("_ms") }.mapValues { replacingGMTYears(in: $0, with: year) }
        default:
            return value
        }
    }
}
