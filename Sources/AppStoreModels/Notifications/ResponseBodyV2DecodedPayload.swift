import Foundation

/// An App Store Server Notification V2 as the App Store signs it: the payload of the webhook's
/// `signedPayload`.
///
/// Exactly one of `data`, `summary`, `externalPurchaseToken` or `appData` is normally present.
public struct ResponseBodyV2DecodedPayload: Codable, Hashable, Sendable {
    /// The event the notification reports.
    public var notificationType: NotificationTypeV2?

    /// Details of the event; absent for types without subtypes.
    public var subtype: Subtype?

    /// The notification's unique identifier; a retried notification keeps it, so use it to deduplicate.
    ///
    /// Kept as the string Apple sends.
    public var notificationUUID: String?

    /// The app, environment and signed transaction data the notification concerns.
    public var data: NotificationData?

    /// The notification format version ("2.0").
    public var version: String?

    /// When the App Store signed this data.
    @AppStoreDate public var signedDate: Date?

    /// The result of a renewal-date extension for all subscribers (`RENEWAL_EXTENSION` / `SUMMARY`).
    public var summary: Summary?

    /// The External Purchase API token the notification concerns.
    public var externalPurchaseToken: ExternalPurchaseToken?

    /// The app-level data of an app-scoped notification such as `RESCIND_CONSENT`.
    public var appData: AppData?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        notificationType: NotificationTypeV2? = nil,
        subtype: Subtype? = nil,
        notificationUUID: String? = nil,
        data: NotificationData? = nil,
        version: String? = nil,
        signedDate: Date? = nil,
        summary: Summary? = nil,
        externalPurchaseToken: ExternalPurchaseToken? = nil,
        appData: AppData? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.version = version
        self.signedDate = signedDate
        self.summary = summary
        self.externalPurchaseToken = externalPurchaseToken
        self.appData = appData
    }
}
