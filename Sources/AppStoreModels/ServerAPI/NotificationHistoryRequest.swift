import Foundation

/// The body of Get Notification History: a date range (at most 180 days back) and one optional filter.
///
/// Dates encode as whole milliseconds, any sub-millisecond part truncated, as Apple expects.
public struct NotificationHistoryRequest: Codable, Hashable, Sendable {
    /// The start of the range (inclusive).
    @AppStoreRequestDate public var startDate: Date?

    /// The end of the range (exclusive).
    @AppStoreRequestDate public var endDate: Date?

    /// Only notifications of this type.
    public var notificationType: NotificationTypeV2?

    /// Only notifications of this subtype (with `notificationType`).
    public var notificationSubtype: Subtype?

    /// Only notifications about this transaction (not combinable with a type filter).
    public var transactionId: String?

    /// Only notifications that never reached your server.
    public var onlyFailures: Bool?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        startDate: Date? = nil,
        endDate: Date? = nil,
        notificationType: NotificationTypeV2? = nil,
        notificationSubtype: Subtype? = nil,
        transactionId: String? = nil,
        onlyFailures: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}
