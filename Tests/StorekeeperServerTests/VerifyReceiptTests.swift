import AppStoreModels
import AppStoreTestSigning
import Foundation
import HummingbirdTesting
import StorekeeperServer
import SubscriptionEngine
import Testing

@Suite("POST /verifyReceipt: local validation plus the ledger")
struct VerifyReceiptTests {
    static func request(_ receipt: String, password: String? = nil, excludeOld: Bool? = nil) throws -> String {
        var object: [String: Any] = ["receipt-data": receipt]
        if let password { object["password"] = password }
        if let excludeOld { object["exclude-old-transactions"] = excludeOld }
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test("a valid receipt gets every ledger transaction of its chains, the renewal info and the receipt echoed", arguments: ServerBackend.available)
    func ledgerKnowledge(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let t0 = Fixture.t0
            let month = 30 * Fixture.day
            let receipt = try TestReceipts.receipt(
                purchases: [("pro.monthly", "r1", "r1", t0, t0 + month), ("pro.lifetime", "l1", "l1", t0, nil)], created: t0 + 60)
            let renewed = try SignedData.transaction(id: "r2", original: "r1", purchase: t0 + month, expires: t0 + 2 * month, signed: t0 + month)
            let notification = try SignedData.notification(
                harness.ca, type: "DID_RENEW", signed: t0 + month, transaction: renewed,
                renewal: try SignedData.renewal(original: "r1", autoRenew: false, signed: t0 + month))
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: notification).status == 200)
            try await harness.processor.drain()
            harness.clock.set(t0 + month + Fixture.day)

            let full = try await client.call(.post, "/verifyReceipt", body: try Self.request(receipt, password: "alpha-shared-secret"))
            #expect(full.json["status"] as? Int == 0)
            #expect(full.json["environment"] as? String == "Sandbox")
            #expect(full.json["latest_receipt"] as? String == receipt)
            let all = try #require(full.json["latest_receipt_info"] as? [[String: Any]])
            #expect(all.compactMap { $0["transaction_id"] as? String } == ["r2", "r1", "l1"])
            let newest = try #require(all.first)
            #expect(newest["original_transaction_id"] as? String == "r1")
            #expect(newest["expires_date_ms"] as? String == "\(SignedData.ms(t0 + 2 * month))")
            #expect(newest["is_trial_period"] as? String == "false")
            #expect(newest["quantity"] as? String == "1")
            let renewals = try #require(full.json["pending_renewal_info"] as? [[String: Any]])
            #expect(renewals.count == 1)
            #expect(renewals.first?["original_transaction_id"] as? String == "r1")
            #expect(renewals.first?["auto_renew_status"] as? String == "0")
            #expect((full.json["receipt"] as? [String: Any])?["bundle_id"] as? String == Fixture.bundle)

            let decoded = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(full.text.utf8))
            let history = PurchaseHistory(verifyReceipt: decoded)
            #expect(history.purchases["r2"]?.expiresDate == t0 + 2 * month)
            #expect(history.renewals["r1"]?.willAutoRenew == false)

            let latest = try await client.call(
                .post, "/verifyReceipt", body: try Self.request(receipt, password: "alpha-shared-secret", excludeOld: true))
            let kept = try #require(latest.json["latest_receipt_info"] as? [[String: Any]])
            #expect(Set(kept.compactMap { $0["transaction_id"] as? String }) == ["r2", "l1"])
        }
    }

    @Test("the password is checked against the app's shared secret; without it only the receipt is shown", arguments: ServerBackend.available)
    func password(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let t0 = Fixture.t0
            let receipt = try TestReceipts.receipt(purchases: [("pro.monthly", "s1", "s1", t0, t0 + 30 * Fixture.day)], created: t0 + 60)
            let wrong = try await client.call(.post, "/verifyReceipt", body: try Self.request(receipt, password: "alpha-shared-secreT"))
            #expect(wrong.json["status"] as? Int == 21004)
            #expect(wrong.json["receipt"] == nil)
            // A genuine receipt with the wrong secret: the app is misconfigured — one problem.
            _ = try await client.call(.post, "/verifyReceipt", body: try Self.request(receipt, password: "nope"))
            let open = try await harness.store.problems(appId: "alpha", status: .open, limit: 5)
            #expect(open.map(\.kind) == ["shared_secret_mismatch"] && open.first?.occurrences == 1)
            let none = try await client.call(.post, "/verifyReceipt", body: try Self.request(receipt))
            #expect(none.json["status"] as? Int == 0)
            #expect(none.json["latest_receipt_info"] == nil)
            #expect(((none.json["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]])?.count == 1)
            let right = try await client.call(.post, "/verifyReceipt", body: try Self.request(receipt, password: "alpha-shared-secret"))
            #expect((right.json["latest_receipt_info"] as? [[String: Any]])?.first?["transaction_id"] as? String == "s1")
            #expect(try await harness.store.problems(appId: "alpha", status: .open, limit: 5).isEmpty)
        }
    }

    @Test("forged, foreign, wrong-environment and non-receipt data get Apple's status codes")
    func refusals() async throws {
        try await ServerHarness.run(.sqlite) { _, client in
            let t0 = Fixture.t0
            let purchases: [(product: String, id: String, original: String, purchase: Date, expires: Date?)] = [
                ("pro.monthly", "f1", "f1", t0, t0 + Fixture.day)
            ]
            let impostor = try ReceiptSigningAuthority.generate(
                validFrom: Date(timeIntervalSince1970: 1_577_836_800), validUntil: Date(timeIntervalSince1970: 2_208_988_800), name: "Impostor")
            let cases: [(String, Int)] = [
                (try TestReceipts.receipt(purchases: purchases, created: t0, by: impostor), 21003),
                (try TestReceipts.receipt(bundleId: "com.unknown.app", purchases: purchases, created: t0), 21003),
                (try TestReceipts.receipt(type: .production, purchases: purchases, created: t0), 21008),
                (Data("pro.monthly".utf8).base64EncodedString(), 21002),
                (Data("{\"signature\":\"x\"}".utf8).base64EncodedString(), 21002),
            ]
            for (receipt, status) in cases {
                let response = try await client.call(.post, "/verifyReceipt", body: try Self.request(receipt, password: "alpha-shared-secret"))
                #expect(response.json["status"] as? Int == status)
                #expect(response.json["latest_receipt_info"] == nil)
            }
        }
    }
}
