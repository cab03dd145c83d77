import Foundation

/// The decoded app receipt in a `verifyReceipt` response (`receipt`, iOS 7 and later).
///
/// Decoding is lenient like ``LegacyInAppPurchase``; encoding writes Apple's exact shape and key
/// order: ids `adam_id`, `app_item_id`, `download_id`, `version_external_identifier` as JSON
/// numbers, every other value as a string, dates as trios.
public struct LegacyReceipt: Hashable, Sendable, Codable {
    /// Which store issued the receipt (`receipt_type`, attribute 0).
    public var receiptType: LegacyReceiptType?
    /// The app's App Store id (`adam_id`, the same value as `app_item_id`; 0 in the sandbox).
    public var adamId: Int64?
    /// The app's App Store id (`app_item_id`, attribute 1; 0 in the sandbox).
    public var appItemId: Int64?
    /// The app's bundle identifier (`bundle_id`, attribute 2).
    public var bundleId: String?
    /// The app's build number (`application_version`, attribute 3, `CFBundleVersion`).
    public var applicationVersion: String?
    /// The id of the app download transaction (`download_id`, attribute 15).
    public var downloadId: Int64?
    /// The app version's App Store id (`version_external_identifier`, attribute 16; 0 in the sandbox).
    public var versionExternalIdentifier: Int64?
    /// When the App Store created the receipt (`receipt_creation_date*`, attribute 12).
    public var receiptCreationDate: Date?
    /// When the `verifyReceipt` request was processed (`request_date*`; not in the receipt).
    public var requestDate: Date?
    /// When the app was first bought (`original_purchase_date*`, attribute 18).
    public var originalPurchaseDate: Date?
    /// The build first bought (`original_application_version`, attribute 19).
    public var originalApplicationVersion: String?
    /// Volume Purchase Program receipts only: when the receipt expires (`expiration_date*`, attribute 21).
    public var expirationDate: Date?
    /// Pre-ordered apps only: when the customer pre-ordered (`preorder_date*`).
    public var preorderDate: Date?
    /// The in-app purchases in the receipt, in the receipt's order (`in_app`).
    public var inApp: [LegacyInAppPurchase]?

    public init(
        receiptType: LegacyReceiptType? = nil, adamId: Int64? = nil, appItemId: Int64? = nil,
        bundleId: String? = nil, applicationVersion: String? = nil, downloadId: Int64? = nil,
        versionExternalIdentifier: Int64? = nil, receiptCreationDate: Date? = nil, requestDate: Date? = nil,
        originalPurchaseDate: Date? = nil, originalApplicationVersion: String? = nil,
        expirationDate: Date? = nil, preorderDate: Date? = nil, inApp: [LegacyInAppPurchase]? = nil
    ) {
        self.receiptType = receiptType
        self.adamId = adamId
        self.appItemId = appItemId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.downloadId = downloadId
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.requestDate = requestDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.expirationDate = expirationDate
        self.preorderDate = preorderDate
        self.inApp = inApp
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyCodingKey.self)
        receiptType = container.lenientString("receipt_type").map(LegacyReceiptType.init(rawValue:))
        adamId = container.lenientInt64("adam_id")
        appItemId = container.lenientInt64("app_item_id")
        bundleId = container.lenientString("bundle_id")
        applicationVersion = container.lenientString("application_version")
        downloadId = container.lenientInt64("download_id")
        versionExternalIdentifier = container.lenientInt64("version_external_identifier")
        receiptCreationDate = container.legacyDate("receipt_creation_date")
        requestDate = container.legacyDate("request_date")
        originalPurchaseDate = container.legacyDate("original_purchase_date")
        originalApplicationVersion = container.lenientString("original_application_version")
        expirationDate = container.legacyDate("expiration_date")
        preorderDate = container.legacyDate("preorder_date")
        inApp = try container.nested([LegacyInAppPurchase].self, "in_app")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyCodingKey.self)
        try container.encodeString(receiptType?.rawValue, "receipt_type")
        try container.encodeNumber(adamId, "adam_id")
        try container.encodeNumber(appItemId, "app_item_id")
        try container.encodeString(bundleId, "bundle_id")
        try container.encodeString(applicationVersion, "application_version")
        try container.encodeNumber(downloadId, "download_id")
        try container.encodeNumber(versionExternalIdentifier, "version_external_identifier")
        try container.encodeLegacyDate(receiptCreationDate, "receipt_creation_date")
        try container.encodeLegacyDate(requestDate, "request_date")
        try container.encodeLegacyDate(originalPurchaseDate, "original_purchase_date")
        try container.encodeString(originalApplicationVersion, "original_application_version")
        try container.encodeLegacyDate(expirationDate, "expiration_date")
        try container.encodeLegacyDate(preorderDate, "preorder_date")
        try container.encodeNested(inApp, "in_app")
    }
}
