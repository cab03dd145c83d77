import AppStoreModels
import Foundation
import Hummingbird

extension SimulatorEndpoints {
    /// Get Notification History, Request a Test Notification and Get Test Notification Status.
    func addNotificationRoutes(to router: Router<BasicRequestContext>) {
        router.post(
            "/inApps/v1/notifications/history",
            use: api(.getNotificationHistory) { request, _ in
                try await notificationHistory(request)
            })
        router.post(
            "/inApps/v1/notifications/test",
            use: api(.requestTestNotification) { _, _ in
                let now = clock.now
                let uuid = UUID().uuidString.lowercased()
                let token = "\(uuid)_\(Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))"
                let signed = try signer.signNotification(
                    type: .test, subtype: nil, uuid: uuid, transaction: nil, subscription: nil, store: store, signedDate: now)
                try await publish(
                    NotificationRecord(
                        notificationUUID: uuid, notificationType: .test, subtype: nil, originalTransactionId: nil, transactionId: nil,
                        firstSendDate: now, signedPayload: signed, testNotificationToken: token))
                return .appleJSON(SendTestNotificationResponse(testNotificationToken: token))
            })
        router.get(
            "/inApps/v1/notifications/test/:token",
            use: api(.getTestNotificationStatus) { _, context in
                guard let token = context.parameters.get("token"), !token.isEmpty, token.count <= 128 else {
                    throw SimulatorAPIError(.invalidTestNotificationToken, "Invalid request. The test notification token is invalid.")
                }
                guard let record = store.testNotification(token: token) else {
                    throw SimulatorAPIError(
                        .testNotificationNotFound,
                        "Either the test notification doesn't exist, or the App Store server hasn't attempted to send it yet.")
                }
                return .appleJSON(CheckTestNotificationResponse(signedPayload: record.signedPayload, sendAttempts: record.sendAttempts))
            })
    }

    /// One page of the notifications first sent in the request's range (and before now),
    /// passing its filter, in send order.
    private func notificationHistory(_ request: Request) async throws -> Response {
        let body = try await decodeBody(NotificationHistoryRequest.self, from: request)
        let now = clock.now
        guard let start = body.startDate else { throw SimulatorAPIError(.invalidStartDate, "Invalid request. The start date is invalid.") }
        guard let end = body.endDate else { throw SimulatorAPIError(.invalidEndDate, "Invalid request. The end date is invalid.") }
        guard start < end else {
            throw SimulatorAPIError(.startDateAfterEndDate, "Invalid request. The end date precedes the start date or the dates are the same.")
        }
        guard start >= now.addingTimeInterval(-configuration.notificationHistoryWindow) else {
            throw SimulatorAPIError(.startDateTooFarInPast, "Invalid request. The start date is earlier than the allowed start date.")
        }
        if let type = body.notificationType, !type.isKnown {
            throw SimulatorAPIError(.invalidNotificationType, "Invalid request. The notification type or subtype is invalid.")
        }
        if let subtype = body.notificationSubtype, !subtype.isKnown || body.notificationType == nil {
            throw SimulatorAPIError(.invalidNotificationType, "Invalid request. The notification type or subtype is invalid.")
        }
        var customer: String?
        if let transactionId = body.transactionId {
            guard body.notificationType == nil else {
                throw SimulatorAPIError(
                    .multipleFiltersSupplied, "Invalid request. Supply either a transaction id or a notification type, but not both.")
            }
            guard !transactionId.isEmpty, transactionId.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw SimulatorAPIError(.invalidTransactionId, "Invalid transaction id.")
            }
            customer = store.customer(ofAnyTransactionId: transactionId) ?? ""
        }
        var startIndex = 0
        if let text = request.uri.queryParameters.get("paginationToken"), !text.isEmpty {
            guard let token = NotificationHistoryToken(token: text, request: body) else {
                throw SimulatorAPIError(.invalidPaginationToken, "Invalid request. The pagination token is invalid.")
            }
            startIndex = token.nextIndex
        }

        let history = store.allNotifications
        var page: [NotificationHistoryResponseItem] = []
        var nextIndex: Int?
        for index in history.indices where index >= startIndex {
            let record = history[index]
            guard record.firstSendDate >= start, record.firstSendDate < end, record.firstSendDate <= now else { continue }
            if let type = body.notificationType, record.notificationType != type { continue }
            if let subtype = body.notificationSubtype, record.subtype != subtype { continue }
            if body.onlyFailures == true, record.wasDelivered { continue }
            if let customer {
                let owner = (record.originalTransactionId ?? record.transactionId).flatMap(store.customer(ofTransaction:))
                guard owner == customer else { continue }
            }
            if page.count == configuration.pageSize {
                nextIndex = index
                break
            }
            page.append(NotificationHistoryResponseItem(signedPayload: record.signedPayload, sendAttempts: record.sendAttempts))
        }
        return .appleJSON(
            NotificationHistoryResponse(
                paginationToken: nextIndex.map { NotificationHistoryToken(nextIndex: $0, request: body).token },
                hasMore: nextIndex != nil, notificationHistory: page))
    }
}
