/// The response of Request a Test Notification.
public struct SendTestNotificationResponse: Codable, Hashable, Sendable {
    /// The token to pass to Get Test Notification Status.
    public var testNotificationToken: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(testNotificationToken: String? = nil) {
        self.testNotificationToken = testNotificationToken
    }
}
