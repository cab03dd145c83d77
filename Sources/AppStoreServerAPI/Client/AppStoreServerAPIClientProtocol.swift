import AppStoreModels
import Foundation

/// Every App Store Server API call, as the server and jobs use it.
///
/// The live value is ``AppStoreServerAPIClient``; tests give it a scripted transport or
/// implement this protocol with a fake. Methods throw ``AppStoreServerAPIError``.
public protocol AppStoreServerAPIClientProtocol: Sendable {
    // MARK: Transactions

    /// Get Transaction Info: one signed transaction.
    func getTransactionInfo(transactionId: String) async throws -> TransactionInfoResponse

    /// Get Transaction History (v2 unless told): one page of a customer's transactions.
    /// Pass the previous page's `revision` and the same filter to continue.
    func getTransactionHistory(
        transactionId: String, revision: String?, filter: TransactionHistoryRequest, version: GetTransactionHistoryVersion
    ) async throws -> HistoryResponse

    /// Get App Transaction Info: the customer's signed app transaction.
    func getAppTransactionInfo(transactionId: String) async throws -> AppTransactionInfoResponse

    /// Finish Transaction: marks a transaction as delivered.
    func finishTransaction(transactionId: String) async throws

    /// Look Up Order ID: the transactions of an order id from a customer's receipt email.
    func lookUpOrderId(orderId: String) async throws -> OrderLookupResponse

    /// Get Refund History (v2): one page of refunded transactions.
    func getRefundHistory(transactionId: String, revision: String?) async throws -> RefundHistoryResponse

    /// Set App Account Token on an original transaction.
    func setAppAccountToken(originalTransactionId: String, request: UpdateAppAccountTokenRequest) async throws

    /// Send Consumption Information (v2), answering a `CONSUMPTION_REQUEST`.
    func sendConsumptionInformation(transactionId: String, request: ConsumptionRequest) async throws

    /// Send Consumption Information (v1, deprecated by Apple).
    func sendConsumptionData(transactionId: String, request: ConsumptionRequestV1) async throws

    // MARK: Subscriptions

    /// Get All Subscription Statuses, optionally only those with the given statuses.
    func getAllSubscriptionStatuses(transactionId: String, statuses: [Status]?) async throws -> StatusResponse

    /// Extend a Subscription Renewal Date.
    func extendSubscriptionRenewalDate(
        originalTransactionId: String, request: ExtendRenewalDateRequest
    ) async throws -> ExtendRenewalDateResponse

    /// Extend Subscription Renewal Dates for All Active Subscribers.
    func extendRenewalDateForAllActiveSubscribers(
        request: MassExtendRenewalDateRequest
    ) async throws -> MassExtendRenewalDateResponse

    /// Get Status of Subscription Renewal Date Extensions (a mass extension's progress).
    func getStatusOfSubscriptionRenewalDateExtensions(
        productId: String, requestIdentifier: String
    ) async throws -> MassExtendRenewalDateStatusResponse

    // MARK: Notifications

    /// Get Notification History: one page; pass the previous page's token to continue.
    func getNotificationHistory(
        paginationToken: String?, request: NotificationHistoryRequest
    ) async throws -> NotificationHistoryResponse

    /// Request a Test Notification.
    func requestTestNotification() async throws -> SendTestNotificationResponse

    /// Get Test Notification Status.
    func getTestNotificationStatus(testNotificationToken: String) async throws -> CheckTestNotificationResponse

    // MARK: Retention Messaging

    /// Uploads a PNG image for retention messages.
    func uploadImage(imageIdentifier: UUID, image: Data, imageSize: ImageSize?) async throws
    /// Deletes a retention-message image.
    func deleteImage(imageIdentifier: UUID) async throws
    /// Lists retention-message images and their review state.
    func getImageList() async throws -> GetImageListResponse
    /// Uploads a retention message.
    func uploadMessage(messageIdentifier: UUID, body: UploadMessageRequestBody) async throws
    /// Deletes a retention message.
    func deleteMessage(messageIdentifier: UUID) async throws
    /// Lists retention messages and their review state.
    func getMessageList() async throws -> GetMessageListResponse
    /// Sets the default message of a product and locale.
    func configureDefaultMessage(productId: String, locale: String, request: DefaultConfigurationRequest) async throws
    /// Removes the default message of a product and locale.
    func deleteDefaultMessage(productId: String, locale: String) async throws
    /// The default message of a product and locale.
    func getDefaultMessage(productId: String, locale: String) async throws -> DefaultConfigurationResponse
    /// Sets the URL of the real-time retention message endpoint.
    func configureRealtimeURL(request: RealtimeUrlRequest) async throws
    /// Removes the real-time endpoint URL.
    func deleteRealtimeURL() async throws
    /// The real-time endpoint URL.
    func getRealtimeURL() async throws -> RealtimeUrlResponse
    /// Starts the sandbox performance test of the real-time endpoint.
    func initiatePerformanceTest(request: PerformanceTestRequest) async throws -> PerformanceTestResponse
    /// The results of a performance test.
    func getPerformanceTestResults(requestId: String) async throws -> PerformanceTestResultResponse
}

extension AppStoreServerAPIClientProtocol {
    /// Get Transaction History v2, one page.
    public func getTransactionHistory(
        transactionId: String, revision: String? = nil, filter: TransactionHistoryRequest = TransactionHistoryRequest()
    ) async throws -> HistoryResponse {
        try await getTransactionHistory(transactionId: transactionId, revision: revision, filter: filter, version: .v2)
    }

    /// Get All Subscription Statuses, every status.
    public func getAllSubscriptionStatuses(transactionId: String) async throws -> StatusResponse {
        try await getAllSubscriptionStatuses(transactionId: transactionId, statuses: nil)
    }
}
