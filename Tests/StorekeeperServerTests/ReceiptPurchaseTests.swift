import Foundation
import HummingbirdTesting
import StorekeeperServer
import Testing

@Suite("POST …/purchases with a legacy receipt: pre-filter, verification, replay")
struct ReceiptPurchaseTests {
    static func body(_ receipt: String) -> String { "{\"receipt\": \"\(receipt)\"}" }

    @Test(
        "junk, foreign and unknown-product receipts are turned away with a reason; a replay by another customer gets 409",
        arguments: ServerBackend.available)
    func receipts(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { _, client in
            let t0 = Fixture.t0
            let path = "/v1/apps/alpha/customers/alice/purchases"
            let refusals: [(String, String, String)] = [
                (Data("pro.monthly".utf8).base64EncodedString(), "invalid_receipt", "notAReceipt"),
                (Data("{\"receipt\":1}".utf8).base64EncodedString(), "invalid_receipt", "notAReceipt"),
                (
                    try TestReceipts.receipt(bundleId: "com.other.app", purchases: [("pro.monthly", "x1", "x1", t0, t0 + Fixture.day)], created: t0),
                    "refused_receipt", "bundle_mismatch"
                ),
                (
                    try TestReceipts.receipt(purchases: [("cracked.everything", "x2", "x2", t0, nil)], created: t0), "refused_receipt",
                    "unknown_product"
                ),
            ]
            for (receipt, code, reason) in refusals {
                let response = try await client.call(.post, path, key: Fixture.alphaKey, body: Self.body(receipt))
                #expect(response.status == 422)
                let error = response.json["error"] as? [String: Any]
                #expect(error?["code"] as? String == code)
                #expect((error?["message"] as? String)?.hasPrefix(reason) == true, "\(String(describing: error))")
            }
            #expect(try await client.call(.get, "/v1/apps/alpha/customers/alice", key: Fixture.alphaKey).status == 404)

            let genuine = try TestReceipts.receipt(purchases: [("pro.monthly", "g1", "g1", t0, t0 + 30 * Fixture.day)], created: t0 + 60)
            let accepted = try await client.call(.post, path, key: Fixture.alphaKey, body: Self.body(genuine))
            #expect(accepted.status == 200)
            #expect((accepted.json["entitlements"] as? [[String: Any]])?.first?["identifier"] as? String == "pro")
            let replay = try await client.call(.post, "/v1/apps/alpha/customers/mallory/purchases", key: Fixture.alphaKey, body: Self.body(genuine))
            #expect(replay.status == 409)
            #expect((replay.json["error"] as? [String: Any])?["code"] as? String == "transaction_belongs_to_another_customer")
        }
    }
}
