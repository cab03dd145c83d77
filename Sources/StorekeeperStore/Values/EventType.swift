/// The kind of an ``EventRecord``: a dotted name. An open set (events out and analytics read
/// the names; a newer version may add some); these are the ones the server writes.
public struct EventType: OpenStringValue {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// A chain's status changed (or it got its first one), whatever the source of the fact.
    public static let statusChanged: EventType = "subscription.status_changed"
    /// The app posted a transaction or receipt and the ledger gained a purchase.
    public static let purchaseRecorded: EventType = "purchase.recorded"
    /// A server notification was verified and its facts recorded.
    public static let notificationProcessed: EventType = "notification.processed"
    /// The operator granted access.
    public static let grantRecorded: EventType = "grant.recorded"
    /// The operator took a transaction or grant back.
    public static let revocationRecorded: EventType = "revoke.recorded"
    /// Consumption information was sent to Apple for a refund request.
    public static let consumptionSent: EventType = "refund.consumption_sent"
    /// A refund request's consumption information was not sent (policy or consent).
    public static let consumptionNotAnswered: EventType = "refund.consumption_not_answered"
    /// A refund request's window closed before it was answered.
    public static let consumptionExpired: EventType = "refund.consumption_expired"
}
