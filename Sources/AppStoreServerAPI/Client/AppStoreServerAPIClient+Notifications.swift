import AppStoreModels
import Foundation

extension AppStoreServerAPIClient {
    public func getNotificationHistory(
        paginationToken: String?, request: NotificationHistoryRequest
    ) async throws -> NotificationHistoryResponse {
        let query = paginationToken.map { [URLQueryItem(name: "paginationToken", value: $0)] } ?? []
        return try await send(
            .json(.getNotificationHistory, "/inApps/v1/notifications/history", query: query, body: request),
            as: NotificationHistoryResponse.self)
    }

    public func requestTestNotification() async throws -> SendTestNotificationResponse {
        try await send(
            APICall(endpoint: .requestTestNotification, path: "/inApps/v1/notifications/test"),
            as: SendTestNotificationResponse.self)
    }

    public func getTestNotificationStatus(testNotificationToken: String) async throws -> CheckTestNotificationResponse {
        try await send(
            APICall(endpoint: .getTestNotificationStatus, path: "/inApps/v1/notifications/test/\(APICall.segment(testNotificationToken))"),
            as: CheckTestNotificationResponse.self)
    }
}
