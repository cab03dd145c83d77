import Foundation

/// A server notification as received, kept in the inbox before the server answers Apple.
///
/// The raw body is the source of truth: processing reads it back, so a crash between receipt
/// and processing loses nothing. After processing, the verified metadata (type, chain,
/// `notificationUUID`) fill in for filtering.
public struct InboxNotification: Sendable, Hashable {
    /// The row id, assigned by the store.
    public var id: Int64?
    /// The tenant the notification was posted to.
    public var appId: String
    /// Exact repeats share this key: V2 `v2:<notificationUUID>:<body digest>`, V1 `v1:<body digest>`.
    public var idempotencyKey: String
    public var version: NotificationVersion
    /// The body in its canonical form (UTF-8): a V2 body is `{"signedPayload":…}` holding
    /// only the verified JWS, a V1 body is the request's JSON without its `password`. The JWS
    /// Apple signed is kept byte for byte.
    public var body: String
    /// Request headers worth keeping (content type, user agent), never credentials.
    public var headers: [String: String]
    /// When the server received it.
    public var receivedAt: Date
    /// Where processing stands.
    public var state: InboxState
    /// Why it was rejected or failed, when it was.
    public var failureReason: String?
    /// Processing attempts so far.
    public var attempts: Int
    /// Verified metadata, present once processed.
    public var metadata: NotificationMetadata?
    /// The W3C `traceparent` of the request that stored the row, when tracing is on: processing,
    /// later and maybe in another process, continues the same trace (docs/observability.md).
    public var traceContext: String? = nil

    public init(
        id: Int64? = nil, appId: String, idempotencyKey: String, version: NotificationVersion, body: String,
        headers: [String: String] = [:], receivedAt: Date, state: InboxState = .pending,
        failureReason: String? = nil, attempts: Int = 0, metadata: NotificationMetadata? = nil
    ) {
        self.id = id
        self.appId = appId
        self.idempotencyKey = idempotencyKey
        self.version = version
        self.body = body
        self.headers = headers
        self.receivedAt = receivedAt
        self.state = state
        self.failureReason = failureReason
        self.attempts = attempts
        self.metadata = metadata
    }

    /// The idempotency key of a body: exact repeats of the same notification collide, and a
    /// forged body reusing a real `notificationUUID` does not shadow the real one.
    public static func idempotencyKey(version: NotificationVersion, notificationUUID: String?, body: Data) -> String {
        let digest = StableDigest.hex(of: body)
        if version == .v2, let notificationUUID { return "v2:\(notificationUUID.lowercased()):\(digest)" }
        return "v\(version.rawValue):\(digest)"
    }
}

/// Where a notification stands in processing.
public enum InboxState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Received, not yet processed (or being processed under a lease).
    case pending
    /// Verified and its facts recorded.
    case processed
    /// Verified as a repeat of a notification already processed.
    case duplicate
    /// Unverifiable or not for this app: kept with its reason, changed nothing.
    case rejected
    /// Processing failed too many times (a poison row): kept with its last error, never
    /// retried on its own, and never in the way of other rows.
    case failed
}

/// What a processed notification was about, for filtering the inbox.
public struct NotificationMetadata: Sendable, Hashable, Codable {
    public var notificationUUID: String?
    public var notificationType: String?
    public var subtype: String?
    public var originalTransactionId: String?
    public var signedDate: Date?
    public var environment: String?

    public init(
        notificationUUID: String? = nil, notificationType: String? = nil, subtype: String? = nil,
        originalTransactionId: String? = nil, signedDate: Date? = nil, environment: String? = nil
    ) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.originalTransactionId = originalTransactionId
        self.signedDate = signedDate
        self.environment = environment
    }
}

/// Which inbox rows to list.
public struct NotificationFilter: Sendable, Hashable {
    public var originalTransactionId: String?
    public var notificationType: String?
    public var state: InboxState?
    /// Apple's subtype (`INITIAL_BUY`, `VOLUNTARY` …).
    public var subtype: String?
    /// Rows received at or after this instant.
    public var receivedFrom: Date?
    /// Rows received before this instant.
    public var receivedBefore: Date?
    public var limit: Int
    /// Whether rows come with their raw bodies. Listings leave them out (a body can be large);
    /// without them ``InboxNotification/body`` is empty.
    public var includesBodies: Bool

    public init(
        originalTransactionId: String? = nil, notificationType: String? = nil, state: InboxState? = nil, limit: Int = 100,
        includesBodies: Bool = false
    ) {
        self.originalTransactionId = originalTransactionId
        self.notificationType = notificationType
        self.state = state
        self.limit = limit
        self.includesBodies = includesBodies
    }
}

/// The result of putting a notification in the inbox.
public enum InboxInsertion: Sendable, Hashable {
    /// A new row.
    case inserted(id: Int64)
    /// The same body was already there.
    case duplicate(id: Int64)

    /// The row id either way.
    public var id: Int64 {
        switch self {
        case .inserted(let id), .duplicate(let id): id
        }
    }
}

/// Which App Store Server Notifications format a body is.
public enum NotificationVersion: Int, Sendable, Hashable, Codable, CaseIterable {
    /// The legacy JSON notification (`notification_type`, `unified_receipt`, `password`).
    case v1 = 1
    /// The signed `{"signedPayload": JWS}` notification.
    case v2 = 2
}
