import AppStoreModels
import AppStoreVerification
import Foundation
import Testing

/// The local `verifyReceipt` output equals Apple's own answer for the same receipt.
@Suite struct VerifyReceiptOutputTests {
    /// Apple's response for `revenuecat-sandbox-sample1-2020.receipt` (RevenueCat's `verifyReceiptSample1.txt`),
    /// stored with the model fixtures and copied here under `receipts/`.
    private func appleResponse() throws -> [String: Any] {
        let data = try ReceiptFixtures.data("receipts/revenuecat-verifyReceiptSample1.json")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func encoded(_ response: VerifyReceiptResponse) throws -> [String: Any] {
        let data = try JSONEncoder().encode(response)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func revenueCatReceiptDecodesToApplesVerifyReceiptAnswerFieldByField() throws {
        let apple = try appleResponse()
        let appleReceipt = try #require(apple["receipt"] as? [String: Any])
        let requestText = try #require(appleReceipt["request_date_ms"] as? String)
        let requestMilliseconds = try #require(Double(requestText))
        let now = Date(appStoreMilliseconds: requestMilliseconds)

        let result = try ReceiptVerifier().verify(try ReceiptFixtures.receipt("revenuecat-sandbox-sample1-2020"), now: now)
        let ours = try encoded(result.verifyReceiptResponse(now: now))
        let ourReceipt = try #require(ours["receipt"] as? [String: Any])

        #expect(ours["status"] as? Int == apple["status"] as? Int)
        #expect(ours["environment"] as? String == apple["environment"] as? String)
        #expect(Set(ourReceipt.keys) == Set(appleReceipt.keys))
        for (key, value) in appleReceipt where key != "in_app" {
            #expect(ourReceipt[key].map(String.init(describing:)) == String(describing: value), "receipt.\(key)")
            #expect((ourReceipt[key] as? String != nil) == (value as? String != nil), "receipt.\(key) is a string in both or neither")
        }
        let appleInApp = try #require(appleReceipt["in_app"] as? [[String: Any]])
        let ourInApp = try #require(ourReceipt["in_app"] as? [[String: Any]])
        try #require(ourInApp.count == appleInApp.count)
        for (index, (mine, theirs)) in zip(ourInApp, appleInApp).enumerated() {
            #expect(Set(mine.keys) == Set(theirs.keys), "in_app[\(index)] keys")
            for (key, value) in theirs {
                #expect(mine[key] as? String == value as? String, "in_app[\(index)].\(key)")
            }
        }
        #expect(NSDictionary(dictionary: ourReceipt).isEqual(to: appleReceipt))
    }

    @Test func xcodeReceiptReportsXcodeEnvironmentAndItsExpirationDate() throws {
        let now = ReceiptFixtures.now
        let result = try ReceiptFixtures.verifierWithXcodeRoot().verify(
            try ReceiptFixtures.receipt("xcode-storekit-2020"), now: now)
        let response = try encoded(result.verifyReceiptResponse(now: now))
        #expect(response["environment"] as? String == "Xcode")
        let receipt = try #require(response["receipt"] as? [String: Any])
        #expect(receipt["expiration_date"] as? String == "4001-01-01 00:00:00 Etc/GMT")
        #expect(receipt["receipt_creation_date"] as? String == "2020-07-22 17:33:15 Etc/GMT")
        #expect(receipt["receipt_creation_date_pst"] as? String == "2020-07-22 10:33:15 America/Los_Angeles")
        let inApp = try #require((receipt["in_app"] as? [[String: Any]])?.first)
        #expect(inApp["expires_date_ms"] as? String == "1626975194000")
        #expect(inApp["original_transaction_id"] == nil)
        #expect(inApp["is_in_intro_offer_period"] as? String == "false")
    }

    @Test func failedVerificationAnswersOnlyTheStatus() throws {
        let result = try ReceiptVerifier().verify(Data("nope".utf8), now: ReceiptFixtures.now)
        let response = try encoded(result.verifyReceiptResponse(now: ReceiptFixtures.now))
        #expect(response.count == 1)
        #expect(response["status"] as? Int == 21002)
    }
}
