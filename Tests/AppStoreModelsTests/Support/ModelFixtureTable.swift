import AppStoreModels
import Foundation

/// Which model type each JSON file under `Fixtures/models/` decodes into.
struct ModelFixtureCase: Sendable, CustomStringConvertible {
    let file: String
    let typeName: String
    /// Decodes the fixture with a plain `JSONDecoder()` and re-encodes it with a plain `JSONEncoder()`.
    let roundTrip: @Sendable (Data) throws -> Data
    /// Keys the model always writes although the fixture leaves them out (constant `operation`/`version`).
    let addedKeys: [String: String]

    var description: String { "\(file) -> \(typeName)" }

    static func of<T: Codable & Sendable>(
        _ file: String, _ type: T.Type, adding addedKeys: [String: String] = [:]
    )
        -> Self
    {
        ModelFixtureCase(
            file: file, typeName: String(describing: type),
            roundTrip: { data in
                try JSONEncoder().encode(try JSONDecoder().decode(T.self, from: data))
            }, addedKeys: addedKeys)
    }

    private static func inApp(_ operation: String) -> [String: String] { ["operation": operation, "version": "1"] }

    /// Every fixture that must decode; `transactionHistoryResponseWithMalformedAppAppleId` must not and is absent.
    static let all: [ModelFixtureCase] = [
        .of("signedTransaction", JWSTransactionDecodedPayload.self),
        .of("signedTransactionWithRevocation", JWSTransactionDecodedPayload.self),
        .of("signedRenewalInfo", JWSRenewalInfoDecodedPayload.self),
        .of("appTransaction", AppTransaction.self),
        .of("signedNotification", ResponseBodyV2DecodedPayload.self),
        .of("signedConsumptionRequestNotification", ResponseBodyV2DecodedPayload.self),
        .of("signedSummaryNotification", ResponseBodyV2DecodedPayload.self),
        .of("signedExternalPurchaseTokenNotification", ResponseBodyV2DecodedPayload.self),
        .of("signedExternalPurchaseTokenSandboxNotification", ResponseBodyV2DecodedPayload.self),
        .of("signedRescindConsentNotification", ResponseBodyV2DecodedPayload.self),
        .of("appData", AppData.self),
        .of("decodedRealtimeRequest", DecodedRealtimeRequestBody.self),

        .of("transactionHistoryResponse", HistoryResponse.self),
        .of("transactionHistoryResponseWithMalformedEnvironment", HistoryResponse.self),
        .of("getAllSubscriptionStatusesResponse", StatusResponse.self),
        .of("getRefundHistoryResponse", RefundHistoryResponse.self),
        .of("getNotificationHistoryResponse", NotificationHistoryResponse.self),
        .of("getTestNotificationStatusResponse", CheckTestNotificationResponse.self),
        .of("requestTestNotificationResponse", SendTestNotificationResponse.self),
        .of("extendSubscriptionRenewalDateResponse", ExtendRenewalDateResponse.self),
        .of("extendRenewalDateForAllActiveSubscribersResponse", MassExtendRenewalDateResponse.self),
        .of("getStatusOfSubscriptionRenewalDateExtensionsResponse", MassExtendRenewalDateStatusResponse.self),
        .of("lookupOrderIdResponse", OrderLookupResponse.self),
        .of("transactionInfoResponse", TransactionInfoResponse.self),
        .of("appTransactionInfoResponse", AppTransactionInfoResponse.self),

        .of("apiException", ErrorPayload.self),
        .of("apiTooManyRequestsException", ErrorPayload.self),
        .of("apiUnknownError", ErrorPayload.self),
        .of("invalidAppAccountTokenUUIDError", ErrorPayload.self),
        .of("familyTransactionNotSupportedError", ErrorPayload.self),
        .of("transactionIdNotOriginalTransactionId", ErrorPayload.self),
        .of("invalidTransactionIdError", ErrorPayload.self),
        .of("transactionIdNotFoundError", ErrorPayload.self),
        .of("appTransactionDoesNotExistError", ErrorPayload.self),

        .of("getImageListResponse", GetImageListResponse.self),
        .of("getMessageListResponse", GetMessageListResponse.self),
        .of("getDefaultMessageResponse", DefaultConfigurationResponse.self),
        .of("getRealtimeUrlResponse", RealtimeUrlResponse.self),
        .of("performanceTestResponse", PerformanceTestResponse.self),
        .of("performanceTestResultResponse", PerformanceTestResultResponse.self),

        .of("advancedCommerceDescriptors", AdvancedCommerceDescriptors.self),
        .of("advancedCommerceOffer", AdvancedCommerceOffer.self),
        .of("advancedCommerceRequestInfo", AdvancedCommerceRequestInfo.self),
        .of(
            "advancedCommerceSubscriptionCreateRequest", AdvancedCommerceSubscriptionCreateRequest.self,
            adding: inApp("CREATE_SUBSCRIPTION")),
        .of("advancedCommerceSubscriptionCreateItem", AdvancedCommerceSubscriptionCreateItem.self),
        .of(
            "advancedCommerceOneTimeChargeCreateRequest", AdvancedCommerceOneTimeChargeCreateRequest.self,
            adding: inApp("CREATE_ONE_TIME_CHARGE")),
        .of("advancedCommerceOneTimeChargeItem", AdvancedCommerceOneTimeChargeItem.self),
        .of(
            "advancedCommerceSubscriptionModifyInAppRequest", AdvancedCommerceSubscriptionModifyInAppRequest.self,
            adding: inApp("MODIFY_SUBSCRIPTION")),
        .of("advancedCommerceSubscriptionModifyAddItem", AdvancedCommerceSubscriptionModifyAddItem.self),
        .of("advancedCommerceSubscriptionModifyChangeItem", AdvancedCommerceSubscriptionModifyChangeItem.self),
        .of("advancedCommerceSubscriptionModifyDescriptors", AdvancedCommerceSubscriptionModifyDescriptors.self),
        .of("advancedCommerceSubscriptionModifyPeriodChange", AdvancedCommerceSubscriptionModifyPeriodChange.self),
        .of("advancedCommerceSubscriptionModifyRemoveItem", AdvancedCommerceSubscriptionModifyRemoveItem.self),
        .of(
            "advancedCommerceSubscriptionReactivateInAppRequest",
            AdvancedCommerceSubscriptionReactivateInAppRequest.self,
            adding: inApp("REACTIVATE_SUBSCRIPTION")),
        .of("advancedCommerceSubscriptionReactivateItem", AdvancedCommerceSubscriptionReactivateItem.self),
        .of("advancedCommerceSubscriptionCancelRequest", AdvancedCommerceSubscriptionCancelRequest.self),
        .of("advancedCommerceSubscriptionCancelResponse", AdvancedCommerceSubscriptionCancelResponse.self),
        .of("advancedCommerceSubscriptionRevokeRequest", AdvancedCommerceSubscriptionRevokeRequest.self),
        .of("advancedCommerceSubscriptionRevokeResponse", AdvancedCommerceSubscriptionRevokeResponse.self),
        .of("advancedCommerceRequestRefundRequest", AdvancedCommerceRequestRefundRequest.self),
        .of("advancedCommerceRequestRefundItem", AdvancedCommerceRequestRefundItem.self),
        .of("advancedCommerceRequestRefundResponse", AdvancedCommerceRequestRefundResponse.self),
        .of(
            "advancedCommerceSubscriptionChangeMetadataRequest", AdvancedCommerceSubscriptionChangeMetadataRequest.self),
        .of(
            "advancedCommerceSubscriptionChangeMetadataDescriptors",
            AdvancedCommerceSubscriptionChangeMetadataDescriptors.self),
        .of("advancedCommerceSubscriptionChangeMetadataItem", AdvancedCommerceSubscriptionChangeMetadataItem.self),
        .of(
            "advancedCommerceSubscriptionChangeMetadataResponse",
            AdvancedCommerceSubscriptionChangeMetadataResponse.self),
        .of("advancedCommerceSubscriptionMigrateRequest", AdvancedCommerceSubscriptionMigrateRequest.self),
        .of("advancedCommerceSubscriptionMigrateDescriptors", AdvancedCommerceSubscriptionMigrateDescriptors.self),
        .of("advancedCommerceSubscriptionMigrateItem", AdvancedCommerceSubscriptionMigrateItem.self),
        .of("advancedCommerceSubscriptionMigrateRenewalItem", AdvancedCommerceSubscriptionMigrateRenewalItem.self),
        .of("advancedCommerceSubscriptionMigrateResponse", AdvancedCommerceSubscriptionMigrateResponse.self),
        .of("advancedCommerceSubscriptionPriceChangeRequest", AdvancedCommerceSubscriptionPriceChangeRequest.self),
        .of("advancedCommerceSubscriptionPriceChangeItem", AdvancedCommerceSubscriptionPriceChangeItem.self),
        .of("advancedCommerceSubscriptionPriceChangeResponse", AdvancedCommerceSubscriptionPriceChangeResponse.self),
    ]
}
