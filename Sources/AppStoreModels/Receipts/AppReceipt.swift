import Foundation

/// A legacy app receipt (iOS 7 and later, macOS), decoded from its signed ASN.1 payload.
///
/// Produced by ``ReceiptVerifier`` once the PKCS#7 signature and certificate chain check out,
/// or by ``AppReceipt/decodeUnverified(_:)`` for inspection. Attribute numbers follow Apple's
/// "Receipt Fields" documentation; values absent from the receipt (or written as empty
/// strings) are `nil`.
public struct AppReceipt: Hashable, Sendable {
    /// Which store issued the receipt (attribute 0: `Production`, `ProductionSandbox`, `Xcode`, …).
    public var receiptType: LegacyReceiptType?
    /// The app's App Store id (attribute 1; 0 in the sandbox).
    public var appItemId: Int64?
    /// The app's bundle identifier (attribute 2).
    public var bundleId: String
    /// The raw DER value of attribute 2, one input of the device hash.
    public var bundleIdData: Data
    /// The app's build number (attribute 3, `CFBundleVersion`).
    public var applicationVersion: String?
    /// An opaque value, one input of the device hash (attribute 4).
    public var opaqueValue: Data?
    /// SHA-1 of device identifier, opaque value and bundle id (attribute 5).
    public var sha1Hash: Data?
    /// The app's age rating (attribute 10, undocumented: `4+`, `17+`).
    public var ageRating: String?
    /// When the App Store created the receipt (attribute 12): the time its chain is validated at.
    public var receiptCreationDate: Date
    /// The id of the app download transaction (attribute 15, undocumented; 0 in the sandbox).
    public var downloadId: Int64?
    /// The app version's App Store id (attribute 16, undocumented; 0 in the sandbox).
    public var versionExternalIdentifier: Int64?
    /// When the app was first bought (attribute 18, undocumented).
    public var originalPurchaseDate: Date?
    /// The build first bought (attribute 19).
    public var originalApplicationVersion: String?
    /// Volume Purchase Program and Xcode receipts: when the receipt expires (attribute 21).
    public var expirationDate: Date?
    /// The in-app purchase records (attribute 17), in receipt order.
    public var inAppPurchases: [AppReceiptInAppPurchase]
    /// Every top-level attribute in receipt order, documented or not.
    public var attributes: [ReceiptAttribute]

    public init(
        receiptType: LegacyReceiptType? = nil, appItemId: Int64? = nil, bundleId: String, bundleIdData: Data,
        applicationVersion: String? = nil, opaqueValue: Data? = nil, sha1Hash: Data? = nil, ageRating: String? = nil,
        receiptCreationDate: Date, downloadId: Int64? = nil, versionExternalIdentifier: Int64? = nil,
        originalPurchaseDate: Date? = nil, originalApplicationVersion: String? = nil, expirationDate: Date? = nil,
        inAppPurchases: [AppReceiptInAppPurchase] = [], attributes: [ReceiptAttribute] = []
    ) {
        self.receiptType = receiptType
        self.appItemId = appItemId
        self.bundleId = bundleId
        self.bundleIdData = bundleIdData
        self.applicationVersion = applicationVersion
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.ageRating = ageRating
        self.receiptCreationDate = receiptCreationDate
        self.downloadId = downloadId
        self.versionExternalIdentifier = versionExternalIdentifier
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
        self.attributes = attributes
    }

    /// The environment Apple's `verifyReceipt` reports for this receipt.
    public var environment: AppStoreEnvironment {
        receiptType?.environment ?? .production
    }
}
