import Crypto
import Foundation

/// How the simulated App Store's HTTP endpoints behave: whom they accept, the legacy shared
/// secret, rate limiting, and what happens when they create a notification.
public struct SimulatorHTTPConfiguration: Sendable {
    /// The App Store Connect issuer id every bearer token must name (`iss`).
    public var issuerId: String
    /// The In-App Purchase keys tokens may be signed with, by key id (`kid`).
    public var keys: [String: P256.Signing.PublicKey]
    /// The app's shared secret `verifyReceipt` requires as `password` to include the account's
    /// latest transactions; `nil` accepts any password.
    public var sharedSecret: String?
    /// Apple's per-endpoint rate limits.
    public var rateLimits: SimulatorRateLimits
    /// Roots trusted when verifying receipts sent to `verifyReceipt`; the signer's receipt
    /// authority root when `nil`.
    public var receiptRootCertificates: [Data]?
    /// The longest token lifetime Apple accepts (`exp` at most this long after `iat`), seconds.
    public var maximumTokenLifetime: TimeInterval
    /// Transactions (history, refunds) and notifications per page.
    public var pageSize: Int
    /// How far back Get Notification History may start, seconds (Apple: 180 days).
    public var notificationHistoryWindow: TimeInterval
    /// The real time, for token expiry and rate-limit windows (tokens live in real time even
    /// while the simulation clock stands still).
    public var wallClock: @Sendable () -> Date
    /// Called with every notification the endpoints create (test notifications, renewal-date
    /// extensions), after it is in the store's history, so delivery can send it.
    public var onNotificationCreated: (@Sendable (NotificationRecord) async -> Void)?

    /// Configures the endpoints.
    ///
    /// - Parameters:
    ///   - issuerId: the issuer id tokens must carry.
    ///   - keys: accepted key ids and their public keys.
    public init(
        issuerId: String,
        keys: [String: P256.Signing.PublicKey],
        sharedSecret: String? = nil,
        rateLimits: SimulatorRateLimits = SimulatorRateLimits(),
        receiptRootCertificates: [Data]? = nil,
        maximumTokenLifetime: TimeInterval = 3600,
        pageSize: Int = 20,
        notificationHistoryWindow: TimeInterval = 180 * 86_400,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        onNotificationCreated: (@Sendable (NotificationRecord) async -> Void)? = nil
    ) {
        self.issuerId = issuerId
        self.keys = keys
        self.sharedSecret = sharedSecret
        self.rateLimits = rateLimits
        self.receiptRootCertificates = receiptRootCertificates
        self.maximumTokenLifetime = maximumTokenLifetime
        self.pageSize = max(1, pageSize)
        self.notificationHistoryWindow = notificationHistoryWindow
        self.wallClock = wallClock
        self.onNotificationCreated = onNotificationCreated
    }
}
