import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

@Suite struct ReceiptPreFilterTests {
    private let filter = ReceiptPreFilter(
        bundleIds: ["com.revenuecat.sampleapp"],
        productIds: ["com.revenuecat.monthly_4.99.1_week_intro", "com.revenuecat.annual_39.99.2_week_intro"])

    private func reason(_ result: Result<ReceiptPreFilter.Summary, ReceiptRejection>) -> ReceiptRejection.Reason? {
        if case .failure(let rejection) = result { return rejection.reason }
        return nil
    }

    @Test func ownReceiptWithKnownProductsPasses() throws {
        let data = try ReceiptFixtures.receipt("revenuecat-sandbox-sample1-2020")
        let summary = try filter.evaluate(data).get()
        #expect(summary.bundleId == "com.revenuecat.sampleapp")
        #expect(summary.productIds.count == 9)
        #expect(try filter.evaluate(Data(data.base64EncodedString().utf8)).get() == summary)
    }

    @Test func receiptOfAnotherAppIsRejectedForItsBundleId() throws {
        let result = filter.evaluate(try ReceiptFixtures.receipt("tpinappreceipt-production-2024"))
        #expect(reason(result) == .wrongBundleId)
    }

    @Test func unknownProductIsRejected() throws {
        let narrow = ReceiptPreFilter(bundleIds: ["com.revenuecat.sampleapp"], productIds: ["com.revenuecat.annual_39.99.2_week_intro"])
        let result = narrow.evaluate(try ReceiptFixtures.receipt("revenuecat-sandbox-sample1-2020"))
        #expect(reason(result) == .unknownProduct)
    }

    @Test func crackerReceiptsJSONAndEmptyInputAreNotReceipts() {
        #expect(reason(filter.evaluate(Data("Y29tLnVydXMuaWFwLjk2NjU3Mjkw".utf8))) == .notAReceipt)
        #expect(reason(filter.evaluate(Data(#"{"receipt": 1}"#.utf8))) == .notAReceipt)
        #expect(reason(filter.evaluate(Data())) == .empty)
        #expect(reason(filter.evaluate(Data([0x30, 0x82, 0x01, 0x00, 0x06]))) == .malformed)
    }

    @Test func iOS6TransactionReceiptsAreCheckedByTheirPurchaseInfo() throws {
        let data = try ReceiptFixtures.data("receipts/ios6-transaction-receipts/revenuecat-unsupportedReceipt1.b64.txt")
        let own = ReceiptPreFilter(bundleIds: ["com.mbaasy.ios.demo"], productIds: ["yearly"])
        let summary = try own.evaluate(data).get()
        #expect(summary.isTransactionReceipt)
        #expect(summary.productIds == ["yearly"])
        #expect(reason(filter.evaluate(data)) == .wrongBundleId)
        #expect(reason(ReceiptPreFilter(bundleIds: ["com.mbaasy.ios.demo"], productIds: ["monthly"]).evaluate(data)) == .unknownProduct)
    }

    @Test func filterDoesNotCheckSignaturesSoForgeriesPassItButNotTheVerifier() throws {
        let authority = try #require(TestReceiptAuthorities.other)
        let forged = try authority.sign(try TestReceiptAuthorities.receipt(bundleId: "com.revenuecat.sampleapp"))
        let loose = ReceiptPreFilter(bundleIds: ["com.revenuecat.sampleapp"])
        #expect(try loose.evaluate(forged).get().bundleId == "com.revenuecat.sampleapp")
        #expect(try ReceiptVerifier().verify(forged, now: TestReceiptAuthorities.now).status == .notAuthenticated)
    }
}
