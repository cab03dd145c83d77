import AppStoreModels
import AppStoreVerification
import Foundation
import Testing

/// Every real receipt in `Fixtures/receipts/` validates and decodes as its `.expected.json` records.
@Suite struct RealReceiptTests {
    @Test(arguments: ReceiptFixtures.receiptNames)
    func realReceiptValidatesAndDecodesEveryAttributeAsRecorded(name: String) throws {
        let verifier = try ReceiptFixtures.verifierWithXcodeRoot()
        let result = verifier.verify(try ReceiptFixtures.receipt(name), now: ReceiptFixtures.now)
        let receipt = try #require(result.receipt, "\(name): \(result.reason ?? "")")
        let expected = try ReceiptFixtures.expected(name)
        let attributes = try #require(expected["attributes"] as? [[String: Any]])

        #expect(receipt.attributes.map(\.type).filter { $0 != 17 } == attributes.compactMap { $0["type"] as? Int })
        for attribute in attributes {
            let type = try #require(attribute["type"] as? Int)
            let value = attribute["value"]
            switch type {
            case 0: #expect(receipt.receiptType?.rawValue == value as? String)
            case 1: #expect(receipt.appItemId == (value as? NSNumber)?.int64Value)
            case 2: #expect(receipt.bundleId == value as? String)
            case 3: #expect(receipt.applicationVersion == nonEmpty(value))
            case 4: #expect(receipt.opaqueValue?.hex == value as? String)
            case 5: #expect(receipt.sha1Hash?.hex == value as? String)
            case 10: #expect(receipt.ageRating == nonEmpty(value))
            case 12: #expect(receipt.receiptCreationDate == isoDate(value))
            case 15: #expect(receipt.downloadId == (value as? NSNumber)?.int64Value)
            case 16: #expect(receipt.versionExternalIdentifier == (value as? NSNumber)?.int64Value)
            case 18: #expect(receipt.originalPurchaseDate == isoDate(value))
            case 19: #expect(receipt.originalApplicationVersion == nonEmpty(value))
            case 21: #expect(receipt.expirationDate == isoDate(value))
            default: break
            }
        }

        let records = try #require(expected["in_app"] as? [[String: [Any]]])
        try #require(receipt.inAppPurchases.count == records.count)
        for (purchase, record) in zip(receipt.inAppPurchases, records) {
            func field(_ type: Int) -> Any? { record[String(type)]?.last }
            #expect(Set(purchase.attributes.map { String($0.type) }) == Set(record.keys))
            #expect(purchase.attributes.count == record.count)
            #expect(purchase.quantity == (field(1701) as? NSNumber)?.intValue)
            #expect(purchase.productId == nonEmpty(field(1702)))
            #expect(purchase.transactionId == nonEmpty(field(1703)))
            #expect(purchase.purchaseDate == isoDate(field(1704)))
            #expect(purchase.originalTransactionId == nonEmpty(field(1705)))
            #expect(purchase.originalPurchaseDate == isoDate(field(1706)))
            #expect(purchase.productType == (field(1707) as? NSNumber)?.intValue)
            #expect(purchase.expiresDate == isoDate(field(1708)))
            let webOrder = (field(1711) as? NSNumber)?.int64Value
            #expect(purchase.webOrderLineItemId == (webOrder == 0 ? nil : webOrder))
            #expect(purchase.cancellationDate == isoDate(field(1712)))
            #expect(purchase.isTrialPeriod == (field(1713) as? NSNumber).map { $0.intValue != 0 })
            #expect(purchase.isInIntroOfferPeriod == (field(1719) as? NSNumber).map { $0.intValue != 0 })
            #expect(purchase.promotionalOfferId == nonEmpty(field(1721)))
        }
    }

    @Test func sandboxG5ReceiptMatchesItsKnownDeviceAndNoOther() throws {
        let verifier = try ReceiptVerifier()
        let data = try ReceiptFixtures.receipt("tpinappreceipt-sandbox-g5-2025")
        let device = try #require(UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7"))
        let valid = verifier.verify(data, deviceIdentifier: device, now: ReceiptFixtures.now)
        #expect(valid.receipt?.deviceHash(for: device).hex == "2158847543683847e9382a0fc51853cb17abcd6d")
        #expect(valid.status == .valid)

        let zero = verifier.verify(data, deviceIdentifier: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), now: ReceiptFixtures.now)
        #expect(zero.status == .notAuthenticated)
    }

    @Test func receiptTypesMapToVerifyReceiptEnvironments() throws {
        let verifier = try ReceiptFixtures.verifierWithXcodeRoot()
        let cases: [(String, LegacyReceiptType, AppStoreEnvironment)] = [
            ("tpinappreceipt-production-2024", .production, .production),
            ("tpinappreceipt-sandbox-legacy-2020", .productionSandbox, .sandbox),
            ("xcode-storekit-2020", .xcode, .xcode),
        ]
        for (name, type, environment) in cases {
            let receipt = try #require(verifier.verify(try ReceiptFixtures.receipt(name), now: ReceiptFixtures.now).receipt)
            #expect(receipt.receiptType == type)
            #expect(receipt.environment == environment)
        }
    }

    @Test func base64TextOfAReceiptVerifiesLikeItsBinary() throws {
        let verifier = try ReceiptVerifier()
        let binary = try ReceiptFixtures.receipt("tpinappreceipt-sandbox-wwdr-g7-2023")
        let wrapped = binary.base64EncodedString(options: .lineLength76Characters)
        let fromText = verifier.verify(base64Encoded: "\n" + wrapped + "\n", now: ReceiptFixtures.now)
        #expect(fromText == verifier.verify(binary, now: ReceiptFixtures.now))
        #expect(fromText.receipt?.bundleId == "com.tikhop.tpinappreceipt")
    }

    @Test func xcodeFixturesFromAppleLibraryAreTheSameReceiptsAsBase64() throws {
        let verifier = try ReceiptFixtures.verifierWithXcodeRoot()
        let text = try ReceiptFixtures.data("xcode/xcode-app-receipt-with-transaction")
        let receipt = try #require(verifier.verify(text, now: ReceiptFixtures.now).receipt)
        #expect(receipt.inAppPurchases.map(\.transactionId) == ["0"])
        let empty = try #require(verifier.verify(try ReceiptFixtures.data("xcode/xcode-app-receipt-empty"), now: ReceiptFixtures.now).receipt)
        #expect(empty.inAppPurchases.isEmpty)
    }

    private func nonEmpty(_ value: Any?) -> String? {
        guard let string = value as? String, !string.isEmpty else { return nil }
        return string
    }

    private func isoDate(_ value: Any?) -> Date? {
        guard let string = value as? String, !string.isEmpty else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: string) { return date }
        let withOffset = string.count > 5 ? String(string.dropLast(2)) + ":" + String(string.suffix(2)) : string
        return formatter.date(from: withOffset)
    }
}

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
