import AppStoreModels
import AppStoreSimulator
import Foundation
import HummingbirdTesting
import Testing

/// The App Store simulator's V1 notification bodies, posted to the server's inbox as Apple would.
@Suite("V1 notifications from the App Store simulator")
struct SimulatorV1NotificationTests {
    @Test(
        "the server follows a subscription through the simulator's V1 bodies and rejects one with a wrong password",
        arguments: ServerBackend.available)
    func simulatorV1Bodies(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let t0 = Fixture.t0
            let day = Fixture.day
            let store = SimulatedAppStore(bundleId: Fixture.bundle, appAppleId: 1, environment: .sandbox)
            var purchase = JWSTransactionDecodedPayload(
                originalTransactionId: "7001", transactionId: "7001", webOrderLineItemId: "97001", bundleId: Fixture.bundle,
                productId: "pro.monthly", subscriptionGroupIdentifier: "pro", purchaseDate: t0, originalPurchaseDate: t0,
                expiresDate: t0 + 30 * day, quantity: 1, type: .autoRenewableSubscription, inAppOwnershipType: .purchased)
            purchase.environment = .sandbox
            store.record(purchase, customerId: "erin")
            var truth = SubscriptionTruth(
                originalTransactionId: "7001", customerId: "erin", subscriptionGroupIdentifier: "pro", productId: "pro.monthly",
                expiresDate: t0 + 30 * day, lastTransactionId: "7001", recentSubscriptionStartDate: t0)
            store.update(truth)
            let signer = SimulatorSigner(certificateAuthority: harness.ca, receiptAuthority: try TestReceipts.authority())
            let builder = NotificationV1Builder(signer: signer, sharedSecret: "alpha-shared-secret")

            func post(_ body: Data?, at instant: Date, expecting status: Int = 200) async throws {
                let text = String(decoding: try #require(body), as: UTF8.self)
                harness.clock.set(instant + 60)
                let response = try await client.call(.post, "/v1/apps/alpha/notifications", body: text)
                #expect(response.status == status, "\(response.json)")
                try await harness.processor.drain()
            }

            try await post(
                try builder.body(type: .subscribed, subtype: .initialBuy, transaction: purchase, subscription: truth, store: store, at: t0),
                at: t0)
            #expect(try await client.status("alpha", "7001", key: Fixture.alphaKey) == "active")

            let refundAt = t0 + 5 * day
            purchase.revocationDate = refundAt
            purchase.revocationReason = .refundedDueToIssue
            store.record(purchase, customerId: "erin")
            truth.revocationDate = refundAt
            store.update(truth)
            try await post(
                try builder.body(type: .refund, subtype: nil, transaction: purchase, subscription: truth, store: store, at: refundAt),
                at: refundAt)
            #expect(try await client.status("alpha", "7001", key: Fixture.alphaKey) == "revoked")

            // A wrong password is turned away at the door and nothing is stored.
            let forger = NotificationV1Builder(signer: signer, sharedSecret: "not-the-shared-secret")
            try await post(
                try forger.body(type: .didRenew, subtype: nil, transaction: purchase, subscription: truth, store: store, at: refundAt + day),
                at: refundAt + day, expecting: 400)
            let stored = try await client.call(.get, "/v1/apps/alpha/notifications", key: Fixture.alphaKey)
            let rows = try #require(stored.json["notifications"] as? [[String: Any]])
            #expect(rows.count == 2)
            #expect(rows.allSatisfy { $0["state"] as? String == "processed" && $0["body"] == nil })
            #expect(try await client.status("alpha", "7001", key: Fixture.alphaKey) == "revoked")
        }
    }
}
