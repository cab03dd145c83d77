/// The test notification and its delivery attempts (Get Test Notification Status).
public struct CheckTestNotificationResponse: Codable, Hashable, Sendable {
    /// The notification, as a JWS (`ResponseBodyV2DecodedPayload`).
    public var signedPayload: String?

    /// Each attempt to deliver the notification, oldest first.
    public var sendAttempts: [SendAttemptItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}
