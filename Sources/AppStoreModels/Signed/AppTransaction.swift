import Foundation

/// The app download transaction as the App Store signs it: StoreKit's `AppTransaction` and the
/// payload of `signedAppTransactionInfo`.
///
/// Every field is optional; unknown values of open value sets are kept.
public struct AppTransaction: Codable, Hashable, Sendable {
    /// The environment the app transaction belongs to.
    public var receiptType: AppStoreEnvironment?

    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The app version the app transaction is for (`CFBundleVersion` on iOS, `CFBundleShortVersionString` on
    /// macOS).
    public var applicationVersion: String?

    /// Identifies the app version the customer downloaded; 0 in the sandbox.
    public var versionExternalIdentifier: Int64?

    /// When the App Store created the app transaction.
    @AppStoreDate public var receiptCreationDate: Date?

    /// When the customer first bought (downloaded) the app.
    @AppStoreDate public var originalPurchaseDate: Date?

    /// The app version the customer originally bought.
    public var originalApplicationVersion: String?

    /// A Base64 SHA-384 hash that binds the app transaction to a device.
    public var deviceVerification: String?

    /// The UUID used to compute `deviceVerification` (kept as a string).
    public var deviceVerificationNonce: String?

    /// When the customer pre-ordered the app; absent if not pre-ordered.
    @AppStoreDate public var preorderDate: Date?

    /// The unique identifier of the app download transaction (the AppTransaction).
    public var appTransactionId: String?

    /// The platform on which the customer first bought the app.
    public var originalPlatform: PurchasePlatform?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        receiptType: AppStoreEnvironment? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        applicationVersion: String? = nil,
        versionExternalIdentifier: Int64? = nil,
        receiptCreationDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        originalApplicationVersion: String? = nil,
        deviceVerification: String? = nil,
        deviceVerificationNonce: String? = nil,
        preorderDate: Date? = nil,
        appTransactionId: String? = nil,
        originalPlatform: PurchasePlatform? = nil
    ) {
        self.receiptType = receiptType
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.preorderDate = preorderDate
        self.appTransactionId = appTransactionId
        self.originalPlatform = originalPlatform
    }
}
