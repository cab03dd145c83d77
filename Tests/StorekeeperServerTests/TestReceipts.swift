import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Foundation

/// App receipts signed by a test receipt authority the fixture's apps trust (its root is one
/// of their `trustedRoots`); the RSA keys are generated once per test process.
enum TestReceipts {
    private static let shared: Result<ReceiptSigningAuthority, any Error> = Result {
        try ReceiptSigningAuthority.generate(
            validFrom: Date(timeIntervalSince1970: 1_577_836_800), validUntil: Date(timeIntervalSince1970: 2_208_988_800))
    }

    static func authority() throws -> ReceiptSigningAuthority { try shared.get() }

    /// A base64 app receipt of `bundleId` holding `purchases` (product, transaction, original
    /// transaction, purchase and expiry), signed by `authority` (the trusted one by default).
    static func receipt(
        bundleId: String = Fixture.bundle, type: LegacyReceiptType = .productionSandbox,
        purchases: [(product: String, id: String, original: String, purchase: Date, expires: Date?)],
        created: Date, by authority: ReceiptSigningAuthority? = nil
    ) throws -> String {
        let receipt = AppReceipt(
            receiptType: type, appItemId: 0, bundleId: bundleId, bundleIdData: try ReceiptPayloadEncoder.bundleIdData(bundleId),
            applicationVersion: "7", opaqueValue: Data([1, 2, 3, 4]), sha1Hash: Data(repeating: 7, count: 20),
            receiptCreationDate: created, downloadId: 0, versionExternalIdentifier: 0, originalPurchaseDate: created,
            originalApplicationVersion: "1.0",
            inAppPurchases: purchases.map {
                AppReceiptInAppPurchase(
                    quantity: 1, productId: $0.product, transactionId: $0.id, purchaseDate: $0.purchase, originalTransactionId: $0.original,
                    originalPurchaseDate: $0.purchase, productType: $0.expires == nil ? 1 : 3, expiresDate: $0.expires,
                    webOrderLineItemId: $0.expires == nil ? nil : 1000, isTrialPeriod: false, isInIntroOfferPeriod: false)
            })
        return try (authority ?? self.authority()).sign(receipt).base64EncodedString()
    }
}
