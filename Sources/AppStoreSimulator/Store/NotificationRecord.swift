import AppStoreModels
import Foundation

/// One V2 notification the simulated App Store sent (or tried to), as its notification history
/// keeps it: the signed payload and every send attempt.
public struct NotificationRecord: Sendable, Hashable {
    public var notificationUUID: String
    public var notificationType: NotificationTypeV2
    public var subtype: Subtype?
    /// The chain the notification is about, if any (test notifications have none).
    public var originalTransactionId: String?
    public var transactionId: String?
    /// When Apple first tried to send it.
    public var firstSendDate: Date
    /// The V2 body's `signedPayload`.
    public var signedPayload: String
    /// The V1 body sent beside it to a V1 URL, when the app also listens to V1.
    public var v1Body: Data?
    public var sendAttempts: [SendAttemptItem]
    /// Test notifications are found by their token.
    public var testNotificationToken: String?

    public init(
        notificationUUID: String, notificationType: NotificationTypeV2, subtype: Subtype?, originalTransactionId: String?,
        transactionId: String?, firstSendDate: Date, signedPayload: String, v1Body: Data? = nil, testNotificationToken: String? = nil
    ) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.firstSendDate = firstSendDate
        self.signedPayload = signedPayload
        self.v1Body = v1Body
        self.sendAttempts = []
        self.testNotificationToken = testNotificationToken
    }

    /// Whether the latest attempt failed (Apple's `onlyFailures` filter).
    public var hasFailedAttempt: Bool {
        sendAttempts.contains { $0.sendAttemptResult != .success }
    }

    /// Whether some attempt succeeded.
    public var wasDelivered: Bool {
        sendAttempts.contains { $0.sendAttemptResult == .success }
    }
}
