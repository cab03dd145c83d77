import AppStoreModels
import AppStoreServerAPI
import Foundation

/// A fake App Store Server API whose every call fails loudly unless the test supplies an answer.
///
/// Set the `…Handler` of each call the code under test is expected to make; any other call
/// throws ``UnexpectedCall`` naming the endpoint, so an unplanned request to Apple cannot pass
/// unnoticed. For tests that need the real client's retries, budgets and encoding, use
/// ``ScriptedTransport`` with ``AppStoreServerAPIClient`` instead.
public struct AppStoreServerAPIFake: AppStoreServerAPIClientProtocol {
    /// Thrown by a call the test did not plan for.
    public struct UnexpectedCall: Error, Hashable, Sendable, CustomStringConvertible {
        public var endpoint: String
        public init(endpoint: String) {
            self.endpoint = endpoint
        }

        public var description: String { "unexpected App Store Server API call: \(endpoint)" }
    }

    public init() {}

    /// Answers `getTransactionInfo`; throws ``UnexpectedCall`` unless replaced.
    public var getTransactionInfoHandler: @Sendable (String) async throws -> TransactionInfoResponse =
        { _ in throw UnexpectedCall(endpoint: "getTransactionInfo") }

    /// Answers `getTransactionHistory`; throws ``UnexpectedCall`` unless replaced.
    public var getTransactionHistoryHandler:
        @Sendable (String, String?, TransactionHistoryRequest, GetTransactionHistoryVersion) async throws -> HistoryResponse =
            { _, _, _, _ in throw UnexpectedCall(endpoint: "getTransactionHistory") }

    /// Answers `getAppTransactionInfo`; throws ``UnexpectedCall`` unless replaced.
    public var getAppTransactionInfoHandler: @Sendable (String) async throws -> AppTransactionInfoResponse =
        { _ in throw UnexpectedCall(endpoint: "getAppTransactionInfo") }

    /// Answers `finishTransaction`; throws ``UnexpectedCall`` unless replaced.
    public var finishTransactionHandler: @Sendable (String) async throws -> Void =
        { _ in throw UnexpectedCall(endpoint: "finishTransaction") }

    /// Answers `lookUpOrderId`; throws ``UnexpectedCall`` unless replaced.
    public var lookUpOrderIdHandler: @Sendable (String) async throws -> OrderLookupResponse =
        { _ in throw UnexpectedCall(endpoint: "lookUpOrderId") }

    /// Answers `getRefundHistory`; throws ``UnexpectedCall`` unless replaced.
    public var getRefundHistoryHandler: @Sendable (String, String?) async throws -> RefundHistoryResponse =
        { _, _ in throw UnexpectedCall(endpoint: "getRefundHistory") }

    /// Answers `setAppAccountToken`; throws ``UnexpectedCall`` unless replaced.
    public var setAppAccountTokenHandler: @Sendable (String, UpdateAppAccountTokenRequest) async throws -> Void =
        { _, _ in throw UnexpectedCall(endpoint: "setAppAccountToken") }

    /// Answers `sendConsumptionInformation`; throws ``UnexpectedCall`` unless replaced.
    public var sendConsumptionInformationHandler: @Sendable (String, ConsumptionRequest) async throws -> Void =
        { _, _ in throw UnexpectedCall(endpoint: "sendConsumptionInformation") }

    /// Answers `sendConsumptionData`; throws ``UnexpectedCall`` unless replaced.
    public var sendConsumptionDataHandler: @Sendable (String, ConsumptionRequestV1) async throws -> Void =
        { _, _ in throw UnexpectedCall(endpoint: "sendConsumptionData") }

    /// Answers `getAllSubscriptionStatuses`; throws ``UnexpectedCall`` unless replaced.
    public var getAllSubscriptionStatusesHandler: @Sendable (String, [Status]?) async throws -> StatusResponse =
        { _, _ in throw UnexpectedCall(endpoint: "getAllSubscriptionStatuses") }

    /// Answers `extendSubscriptionRenewalDate`; throws ``UnexpectedCall`` unless replaced.
    public var extendSubscriptionRenewalDateHandler: @Sendable (String, ExtendRenewalDateRequest) async throws -> ExtendRenewalDateResponse =
        { _, _ in throw UnexpectedCall(endpoint: "extendSubscriptionRenewalDate") }

    /// Answers `extendRenewalDateForAllActiveSubscribers`; throws ``UnexpectedCall`` unless replaced.
    public var extendRenewalDateForAllActiveSubscribersHandler:
        @Sendable (MassExtendRenewalDateRequest) async throws -> MassExtendRenewalDateResponse =
            { _ in throw UnexpectedCall(endpoint: "extendRenewalDateForAllActiveSubscribers") }

    /// Answers `getStatusOfSubscriptionRenewalDateExtensions`; throws ``UnexpectedCall`` unless replaced.
    public var getStatusOfSubscriptionRenewalDateExtensionsHandler: @Sendable (String, String) async throws -> MassExtendRenewalDateStatusResponse =
        { _, _ in throw UnexpectedCall(endpoint: "getStatusOfSubscriptionRenewalDateExtensions") }

    /// Answers `getNotificationHistory`; throws ``UnexpectedCall`` unless replaced.
    public var getNotificationHistoryHandler: @Sendable (String?, NotificationHistoryRequest) async throws -> NotificationHistoryResponse =
        { _, _ in throw UnexpectedCall(endpoint: "getNotificationHistory") }

    /// Answers `requestTestNotification`; throws ``UnexpectedCall`` unless replaced.
    public var requestTestNotificationHandler: @Sendable () async throws -> SendTestNotificationResponse =
        { throw UnexpectedCall(endpoint: "requestTestNotification") }

    /// Answers `getTestNotificationStatus`; throws ``UnexpectedCall`` unless replaced.
    public var getTestNotificationStatusHandler: @Sendable (String) async throws -> CheckTestNotificationResponse =
        { _ in throw UnexpectedCall(endpoint: "getTestNotificationStatus") }

    /// Answers `uploadImage`; throws ``UnexpectedCall`` unless replaced.
    public var uploadImageHandler: @Sendable (UUID, Data, ImageSize?) async throws -> Void =
        { _, _, _ in throw UnexpectedCall(endpoint: "uploadImage") }

    /// Answers `deleteImage`; throws ``UnexpectedCall`` unless replaced.
    public var deleteImageHandler: @Sendable (UUID) async throws -> Void =
        { _ in throw UnexpectedCall(endpoint: "deleteImage") }

    /// Answers `getImageList`; throws ``UnexpectedCall`` unless replaced.
    public var getImageListHandler: @Sendable () async throws -> GetImageListResponse =
        { throw UnexpectedCall(endpoint: "getImageList") }

    /// Answers `uploadMessage`; throws ``UnexpectedCall`` unless replaced.
    public var uploadMessageHandler: @Sendable (UUID, UploadMessageRequestBody) async throws -> Void =
        { _, _ in throw UnexpectedCall(endpoint: "uploadMessage") }

    /// Answers `deleteMessage`; throws ``UnexpectedCall`` unless replaced.
    public var deleteMessageHandler: @Sendable (UUID) async throws -> Void =
        { _ in throw UnexpectedCall(endpoint: "deleteMessage") }

    /// Answers `getMessageList`; throws ``UnexpectedCall`` unless replaced.
    public var getMessageListHandler: @Sendable () async throws -> GetMessageListResponse =
        { throw UnexpectedCall(endpoint: "getMessageList") }

    /// Answers `configureDefaultMessage`; throws ``UnexpectedCall`` unless replaced.
    public var configureDefaultMessageHandler: @Sendable (String, String, DefaultConfigurationRequest) async throws -> Void =
        { _, _, _ in throw UnexpectedCall(endpoint: "configureDefaultMessage") }

    /// Answers `deleteDefaultMessage`; throws ``UnexpectedCall`` unless replaced.
    public var deleteDefaultMessageHandler: @Sendable (String, String) async throws -> Void =
        { _, _ in throw UnexpectedCall(endpoint: "deleteDefaultMessage") }

    /// Answers `getDefaultMessage`; throws ``UnexpectedCall`` unless replaced.
    public var getDefaultMessageHandler: @Sendable (String, String) async throws -> DefaultConfigurationResponse =
        { _, _ in throw UnexpectedCall(endpoint: "getDefaultMessage") }

    /// Answers `configureRealtimeURL`; throws ``UnexpectedCall`` unless replaced.
    public var configureRealtimeURLHandler: @Sendable (RealtimeUrlRequest) async throws -> Void =
        { _ in throw UnexpectedCall(endpoint: "configureRealtimeURL") }

    /// Answers `deleteRealtimeURL`; throws ``UnexpectedCall`` unless replaced.
    public var deleteRealtimeURLHandler: @Sendable () async throws -> Void =
        { throw UnexpectedCall(endpoint: "deleteRealtimeURL") }

    /// Answers `getRealtimeURL`; throws ``UnexpectedCall`` unless replaced.
    public var getRealtimeURLHandler: @Sendable () async throws -> RealtimeUrlResponse =
        { throw UnexpectedCall(endpoint: "getRealtimeURL") }

    /// Answers `initiatePerformanceTest`; throws ``UnexpectedCall`` unless replaced.
    public var initiatePerformanceTestHandler: @Sendable (PerformanceTestRequest) async throws -> PerformanceTestResponse =
        { _ in throw UnexpectedCall(endpoint: "initiatePerformanceTest") }

    /// Answers `getPerformanceTestResults`; throws ``UnexpectedCall`` unless replaced.
    public var getPerformanceTestResultsHandler: @Sendable (String) async throws -> PerformanceTestResultResponse =
        { _ in throw UnexpectedCall(endpoint: "getPerformanceTestResults") }

    public func getTransactionInfo(transactionId: String) async throws -> TransactionInfoResponse {
        try await getTransactionInfoHandler(transactionId)
    }

    public func getTransactionHistory(
        transactionId: String, revision: String?, filter: TransactionHistoryRequest, version: GetTransactionHistoryVersion
    ) async throws -> HistoryResponse {
        try await getTransactionHistoryHandler(transactionId, revision, filter, version)
    }

    public func getAppTransactionInfo(transactionId: String) async throws -> AppTransactionInfoResponse {
        try await getAppTransactionInfoHandler(transactionId)
    }

    public func finishTransaction(transactionId: String) async throws {
        try await finishTransactionHandler(transactionId)
    }

    public func lookUpOrderId(orderId: String) async throws -> OrderLookupResponse {
        try await lookUpOrderIdHandler(orderId)
    }

    public func getRefundHistory(transactionId: String, revision: String?) async throws -> RefundHistoryResponse {
        try await getRefundHistoryHandler(transactionId, revision)
    }

    public func setAppAccountToken(originalTransactionId: String, request: UpdateAppAccountTokenRequest) async throws {
        try await setAppAccountTokenHandler(originalTransactionId, request)
    }

    public func sendConsumptionInformation(transactionId: String, request: ConsumptionRequest) async throws {
        try await sendConsumptionInformationHandler(transactionId, request)
    }

    public func sendConsumptionData(transactionId: String, request: ConsumptionRequestV1) async throws {
        try await sendConsumptionDataHandler(transactionId, request)
    }

    public func getAllSubscriptionStatuses(transactionId: String, statuses: [Status]?) async throws -> StatusResponse {
        try await getAllSubscriptionStatusesHandler(transactionId, statuses)
    }

    public func extendSubscriptionRenewalDate(
        originalTransactionId: String, request: ExtendRenewalDateRequest
    ) async throws -> ExtendRenewalDateResponse {
        try await extendSubscriptionRenewalDateHandler(originalTransactionId, request)
    }

    public func extendRenewalDateForAllActiveSubscribers(request: MassExtendRenewalDateRequest) async throws -> MassExtendRenewalDateResponse {
        try await extendRenewalDateForAllActiveSubscribersHandler(request)
    }

    public func getStatusOfSubscriptionRenewalDateExtensions(
        productId: String, requestIdentifier: String
    ) async throws -> MassExtendRenewalDateStatusResponse {
        try await getStatusOfSubscriptionRenewalDateExtensionsHandler(productId, requestIdentifier)
    }

    public func getNotificationHistory(paginationToken: String?, request: NotificationHistoryRequest) async throws -> NotificationHistoryResponse {
        try await getNotificationHistoryHandler(paginationToken, request)
    }

    public func requestTestNotification() async throws -> SendTestNotificationResponse {
        try await requestTestNotificationHandler()
    }

    public func getTestNotificationStatus(testNotificationToken: String) async throws -> CheckTestNotificationResponse {
        try await getTestNotificationStatusHandler(testNotificationToken)
    }

    public func uploadImage(imageIdentifier: UUID, image: Data, imageSize: ImageSize?) async throws {
        try await uploadImageHandler(imageIdentifier, image, imageSize)
    }

    public func deleteImage(imageIdentifier: UUID) async throws {
        try await deleteImageHandler(imageIdentifier)
    }

    public func getImageList() async throws -> GetImageListResponse {
        try await getImageListHandler()
    }

    public func uploadMessage(messageIdentifier: UUID, body: UploadMessageRequestBody) async throws {
        try await uploadMessageHandler(messageIdentifier, body)
    }

    public func deleteMessage(messageIdentifier: UUID) async throws {
        try await deleteMessageHandler(messageIdentifier)
    }

    public func getMessageList() async throws -> GetMessageListResponse {
        try await getMessageListHandler()
    }

    public func configureDefaultMessage(productId: String, locale: String, request: DefaultConfigurationRequest) async throws {
        try await configureDefaultMessageHandler(productId, locale, request)
    }

    public func deleteDefaultMessage(productId: String, locale: String) async throws {
        try await deleteDefaultMessageHandler(productId, locale)
    }

    public func getDefaultMessage(productId: String, locale: String) async throws -> DefaultConfigurationResponse {
        try await getDefaultMessageHandler(productId, locale)
    }

    public func configureRealtimeURL(request: RealtimeUrlRequest) async throws {
        try await configureRealtimeURLHandler(request)
    }

    public func deleteRealtimeURL() async throws {
        try await deleteRealtimeURLHandler()
    }

    public func getRealtimeURL() async throws -> RealtimeUrlResponse {
        try await getRealtimeURLHandler()
    }

    public func initiatePerformanceTest(request: PerformanceTestRequest) async throws -> PerformanceTestResponse {
        try await initiatePerformanceTestHandler(request)
    }

    public func getPerformanceTestResults(requestId: String) async throws -> PerformanceTestResultResponse {
        try await getPerformanceTestResultsHandler(requestId)
    }
}
