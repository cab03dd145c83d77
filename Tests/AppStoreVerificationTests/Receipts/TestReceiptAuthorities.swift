import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Foundation

/// Test authorities and receipts shared by the forged-input tests; keys are generated once.
enum TestReceiptAuthorities {
    static let validFrom = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01
    static let validUntil = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01
    static let creationDate = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z
    static let now = Date(timeIntervalSince1970: 1_700_000_600)

    static let appStore: ReceiptSigningAuthority? = try? .generate(validFrom: validFrom, validUntil: validUntil)
    static let other: ReceiptSigningAuthority? = try? .generate(
        validFrom: validFrom, validUntil: validUntil, name: "Impostor")
    static let legacySHA1: ReceiptSigningAuthority? = try? .generate(
        validFrom: validFrom, validUntil: validUntil, certificateSignatureAlgorithm: .sha1WithRSAEncryption)
    static let xcode: ReceiptSigningAuthority? = try? .generateSelfSigned(validFrom: validFrom, validUntil: validUntil)

    static let device = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    /// A sandbox receipt with one subscription purchase and one consumable, hashed for ``device``.
    static func receipt(
        bundleId: String = "com.example.storekeeper", type: LegacyReceiptType = .productionSandbox,
        creationDate: Date = creationDate, expirationDate: Date? = nil
    ) throws -> AppReceipt {
        var receipt = AppReceipt(
            receiptType: type, appItemId: 0, bundleId: bundleId,
            bundleIdData: try ReceiptPayloadEncoder.bundleIdData(bundleId), applicationVersion: "42",
            opaqueValue: Data([0xA1, 0xB2, 0xC3, 0xD4, 0x01, 0x02, 0x03, 0x04]), ageRating: "4+",
            receiptCreationDate: creationDate, downloadId: 0, versionExternalIdentifier: 0,
            originalPurchaseDate: Date(timeIntervalSince1970: 1_375_340_400), originalApplicationVersion: "1.0",
            expirationDate: expirationDate,
            inAppPurchases: [
                AppReceiptInAppPurchase(
                    quantity: 1, productId: "com.example.monthly", transactionId: "2000000000000002",
                    purchaseDate: Date(timeIntervalSince1970: 1_699_990_000), originalTransactionId: "2000000000000001",
                    originalPurchaseDate: Date(timeIntervalSince1970: 1_699_000_000), productType: 3,
                    expiresDate: Date(timeIntervalSince1970: 1_702_582_000), webOrderLineItemId: 2_000_000_000_123,
                    isTrialPeriod: false, isInIntroOfferPeriod: true, promotionalOfferId: "winback"),
                AppReceiptInAppPurchase(
                    quantity: 3, productId: "com.example.coins", transactionId: "2000000000000003",
                    purchaseDate: Date(timeIntervalSince1970: 1_699_995_000), originalTransactionId: "2000000000000003",
                    originalPurchaseDate: Date(timeIntervalSince1970: 1_699_995_000), productType: 1,
                    isTrialPeriod: false, isInIntroOfferPeriod: false),
            ])
        receipt.sha1Hash = receipt.deviceHash(for: device)
        return receipt
    }
}
