/// A page of notification history (Get Notification History).
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    /// The token to pass as `paginationToken` to fetch the next page.
    public var paginationToken: String?

    /// Whether more pages are available.
    public var hasMore: Bool?

    /// The notifications on this page.
    public var notificationHistory: [NotificationHistoryResponseItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        paginationToken: String? = nil,
        hasMore: Bool? = nil,
        notificationHistory: [NotificationHistoryResponseItem]? = nil
    ) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.notificationHistory = notificationHistory
    }
}
