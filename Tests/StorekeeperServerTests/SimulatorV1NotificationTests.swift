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

            func post(_ body: Data?, at instant: Date) async throws {
                let text = String(decoding: try #require(body), as: UTF8.self)
                harness.clock.set(instant + 60)
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: text).status == 200)
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

            let forger = NotificationV1Builder(signer: signer, sharedSecret: "not-the-shared-secret")
            try await post(
                try forger.body(type: .didRenew, subtype: nil, transaction: purchase, subscription: truth, store: store, at: refundAt + day),
                at: refundAt + day)
            let rejected = try await client.call(.get, "/v1/apps/alpha/notifications?state=rejected", key: Fixture.alphaKey)
            let reasons = (rejected.json["notifications"] as? [[String: Any]])?.compactMap { $0["failureReason"] as? String } ?? []
            #expect(reasons.count == 1)
            #expect(reasons.first?.hasPrefix("invalid_password") == true, "\(reasons)")
            #expect(try await client.status("alpha", "7001", key: Fixture.alphaKey) == "revoked")
        }
    }
}
