import AppStoreModels
import Foundation
import Testing

@Suite struct VerifyReceiptResponseTests {
    private func decode(_ file: String) throws -> VerifyReceiptResponse {
        try JSONDecoder().decode(VerifyReceiptResponse.self, from: try LegacyFixtures.data("verify-receipt", file))
    }

    @Test(arguments: LegacyFixtures.verifyReceiptFiles)
    func everyFixtureDecodesAndSurvivesARoundTrip(file: String) throws {
        let response = try decode(file)
        let again = try JSONDecoder().decode(VerifyReceiptResponse.self, from: try JSONEncoder().encode(response))
        #expect(again == response)
    }

    @Test func revenueCatResponseDecodesReceiptInAppAndRenewalInfo() throws {
        let response = try decode("revenuecat-verifyReceiptSample1.json")
        #expect(response.status == .valid)
        #expect(response.environment == .sandbox)
        let receipt = try #require(response.receipt)
        #expect(receipt.receiptType == .productionSandbox)
        #expect(receipt.bundleId == "com.revenuecat.sampleapp")
        #expect(receipt.adamId == 0)
        #expect(receipt.receiptCreationDate == LegacyFixtures.milliseconds(1_595_439_548_000))
        #expect(receipt.requestDate == LegacyFixtures.milliseconds(1_595_440_486_402))
        let inApp = try #require(receipt.inApp)
        #expect(inApp.count == 9)
        #expect(inApp.filter { $0.isTrialPeriod == true }.map(\.transactionId) == ["1000000692878476"])
        #expect(inApp[0].expiresDate == LegacyFixtures.milliseconds(1_594_755_700_000))
        #expect(response.latestReceiptInfo?.count == 9)
        let renewal = try #require(response.pendingRenewalInfo?.first)
        #expect(renewal.autoRenewStatus == true)
        #expect(renewal.autoRenewProductId == "com.revenuecat.annual_39.99.2_week_intro")
    }

    @Test func itunesIapMiddleAgeResponseMatchesUpstreamAssertions() throws {
        let response = try decode("itunes-iap-autorenew-response2.json")
        let receipt = try #require(response.receipt)
        #expect(receipt.appItemId == 0)
        #expect(receipt.bundleId == "com.example.app")
        #expect(receipt.applicationVersion == "8")
        #expect(receipt.versionExternalIdentifier == 0)
        #expect(receipt.receiptCreationDate == LegacyFixtures.milliseconds(1_500_973_280_000))
        #expect(receipt.requestDate == LegacyFixtures.milliseconds(1_501_149_119_587))
        #expect(receipt.originalPurchaseDate == LegacyFixtures.milliseconds(1_375_340_400_000))
        #expect(receipt.originalApplicationVersion == "1.0")
        // itunes-iap's in_app[0] is its newest record; find it by id.
        let first = try #require(receipt.inApp?.first { $0.transactionId == "1000000318407192" })
        #expect(first.productId == "testproduct")
        #expect(first.transactionId == "1000000318407192")
        #expect(first.originalTransactionId == "1000000318012065")
        #expect(first.purchaseDate == LegacyFixtures.milliseconds(1_500_973_279_000))
        #expect(first.originalPurchaseDate == LegacyFixtures.milliseconds(1_500_884_005_000))
        #expect(first.expiresDate == LegacyFixtures.milliseconds(1_500_973_579_000))
        #expect(first.webOrderLineItemId == "1000000035713887")
        #expect(first.isTrialPeriod == false)
        let latest = try #require(response.latestReceiptInfo)
        #expect(latest.last?.transactionId == "1000000318420598")
        #expect(latest.last?.expiresDate == LegacyFixtures.milliseconds(1_500_975_210_000))
        #expect(Array(latest.prefix(receipt.inApp?.count ?? 0)) == receipt.inApp)
        let renewal = try #require(response.pendingRenewalInfo?.first)
        #expect(renewal.expirationIntent == .customerCancelled)
        #expect(renewal.isInBillingRetryPeriod == false)
        #expect(renewal.autoRenewStatus == false)
    }

    @Test func iOS6ResponsesDecodeTheTransactionReceiptAndMillisecondExpiry() throws {
        let masked = try decode("itunes-iap-autorenew-response3.json")
        #expect(masked.receipt == nil)
        #expect(masked.autoRenewStatus == true)
        #expect(masked.transactionReceipt?.quantity == 1)
        #expect(masked.transactionReceipt?.expiresDate == LegacyFixtures.milliseconds(1_506_524_970_000))
        #expect(masked.transactionReceipt?.bvrs == "1.1.6")
        #expect(masked.latestReceiptInfo?.first?.quantity == 1)
        #expect(masked.latestReceiptInfo?.first?.expiresDate == LegacyFixtures.milliseconds(1_506_524_970_000))

        let legacy = try decode("itunes-iap-autorenew-response-ios6-legacy.json")
        #expect(legacy.transactionReceipt == legacy.latestReceiptInfo?.first)
        #expect(legacy.transactionReceipt?.expiresDate == LegacyFixtures.milliseconds(1_354_436_154_000))
        #expect(legacy.transactionReceipt?.bid == "com.example.001")
        #expect(legacy.transactionReceipt?.itemId == "580190000")
    }

    @Test func numbersAndBooleansWhereAppleSendsStringsAreAccepted() throws {
        let response = try decode("aporat-inAppPurchaseResponse.json")
        let first = try #require(response.latestReceiptInfo?.first)
        #expect(first.transactionId == "1000000104232856")
        #expect(first.quantity == 1)
        #expect(first.isTrialPeriod == false)
        #expect(first.expiresDate == LegacyFixtures.milliseconds(1_394_619_485_000))
        let encoded = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(first)) as? [String: Any])
        #expect(encoded["transaction_id"] as? String == "1000000104232856")
        #expect(encoded["expires_date"] as? String == "2014-03-12 10:18:05 Etc/GMT")
        #expect(encoded["expires_date_pst"] as? String == "2014-03-12 03:18:05 America/Los_Angeles")
        #expect(encoded["is_trial_period"] as? String == "false")
    }

    @Test func editedImdhemyResponseAndInvalidStatusDecode() throws {
        let imdhemy = try decode("imdhemy-verify_receipt_response.json")
        #expect(imdhemy.receipt?.inApp?.count == 42)
        #expect(imdhemy.latestReceiptInfo?.first?.inAppOwnershipType == .purchased)
        #expect(imdhemy.latestReceiptInfo?.first?.subscriptionGroupIdentifier != nil)
        let invalid = try decode("aporat-inAppPurchaseInvalidReceiptResponse.json")
        #expect(invalid.status == .malformedReceipt)
        #expect(invalid.receipt == nil)
    }

    @Test func statusCodesCoverAppleDocumentedSetAsAnOpenValue() throws {
        #expect(VerifyReceiptStatus.known.map(\.rawValue) == [0] + Array(21000...21010))
        #expect(VerifyReceiptStatus(rawValue: 21150).isInternalDataAccessError)
        #expect(VerifyReceiptStatus(rawValue: 21150).isDocumented)
        #expect(!VerifyReceiptStatus(rawValue: 21200).isDocumented)
        #expect(VerifyReceiptStatus.sandboxReceiptSentToProduction.meaning.contains("sandbox"))
        let decoded = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(#"{"status": "21199", "is-retryable": true}"#.utf8))
        #expect(decoded.status.rawValue == 21199)
        #expect(decoded.isRetryable == true)
        #expect(try JSONDecoder().decode(VerifyReceiptStatus.self, from: Data("21042".utf8)).rawValue == 21042)
    }

    @Test func requestUsesApplesHyphenatedKeys() throws {
        let request = VerifyReceiptRequest(receiptData: "MIIT", password: "secret", excludeOldTransactions: true)
        let object = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(request)) as? [String: Any])
        #expect(object["receipt-data"] as? String == "MIIT")
        #expect(object["exclude-old-transactions"] as? Bool == true)
        #expect(try JSONDecoder().decode(VerifyReceiptRequest.self, from: try JSONEncoder().encode(request)) == request)
    }
}
