import AppStoreModels
import Foundation
import HummingbirdTesting
import StorekeeperServer
import Testing

@Suite("API: monthly plans with a 12-month commitment")
struct CommitmentPlanTests {
    @Test("a monthly payment of a commitment, posted by the app, shows its commitment in the customer's state, renewing while payments are owed")
    func customerStateShowsTheCommitment() async throws {
        try await RealtimeRetentionTests.run(.sqlite, apple: nil) { harness, client in
            let start = Fixture.t0 - 10 * Fixture.day
            var object: [String: Any] = [
                "transactionId": "9100003", "originalTransactionId": "9100001", "bundleId": Fixture.bundle, "productId": "pro.yearly",
                "purchaseDate": SignedData.ms(start), "originalPurchaseDate": SignedData.ms(start - 60 * Fixture.day),
                "expiresDate": SignedData.ms(start + 30 * Fixture.day), "signedDate": SignedData.ms(start), "quantity": 1,
                "type": "Auto-Renewable Subscription", "subscriptionGroupIdentifier": "pro", "inAppOwnershipType": "PURCHASED",
                "environment": "Sandbox", "transactionReason": "RENEWAL", "storefront": "USA", "currency": "USD", "price": 9_990,
                "billingPlanType": "MONTHLY",
            ]
            object["commitmentInfo"] = [
                "billingPeriodNumber": 3, "totalBillingPeriods": 12, "commitmentPrice": 119_880,
                "commitmentExpiresDate": SignedData.ms(start + 270 * Fixture.day),
            ]
            let transaction = try SignedData.decode(JWSTransactionDecodedPayload.self, object)
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(transaction))\"}"
            let posted = try await client.call(.post, "/v1/apps/alpha/customers/erin/purchases", key: Fixture.alphaKey, body: body)
            #expect(posted.status == 200, "\(posted.text)")
            let customer = try await client.call(.get, "/v1/apps/alpha/customers/erin", key: Fixture.alphaKey)
            let subscription = try #require((customer.json["subscriptions"] as? [[String: Any]])?.first, "\(customer.text)")
            #expect(subscription["billingPlanType"] as? String == "MONTHLY")
            let commitment = try #require(subscription["commitment"] as? [String: Any], "\(subscription)")
            #expect(commitment["billingPeriodNumber"] as? Int == 3 && commitment["totalBillingPeriods"] as? Int == 12)
            #expect(subscription["willAutoRenew"] as? Bool == true, "payments are still owed")
        }
    }
}
