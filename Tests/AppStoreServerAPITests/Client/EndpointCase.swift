import AppStoreModels
import AppStoreServerAPI
import Foundation
import Testing

/// One endpoint's expected request and scripted response.
struct EndpointCase: Sendable, CustomTestStringConvertible {
    var name: String
    var method: String
    var path: String
    /// The exact percent-encoded query, `nil` for none.
    var query: String? = nil
    /// The expected JSON body, `nil` for none.
    var body: String? = nil
    var contentType: String? = nil
    var rawBody: Data? = nil
    /// The response fixture under `Fixtures/models/`, `nil` for an empty 200.
    var fixture: String? = nil
    /// Calls the endpoint; returns the response re-encoded as sorted JSON (nil for no body).
    var call: @Sendable (AppStoreServerAPIClient) async throws -> Data?
    /// Decodes the fixture as the endpoint's response type and re-encodes it as sorted JSON.
    var expected: (@Sendable (Data) throws -> Data)? = nil

    var testDescription: String { name }
}

func sortedJSON(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(value)
}

func decodeAndEncode<T: Codable & SendableMetatype>(_ type: T.Type) -> @Sendable (Data) throws -> Data {
    { data in try sortedJSON(JSONDecoder().decode(T.self, from: data)) }
}

enum EndpointCases {
    static let imageId = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000000A")!
    static let messageId = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000000B")!
    static let start = Date(appStoreMilliseconds: Int64(1_698_148_900_000))
    static let end = Date(appStoreMilliseconds: Int64(1_698_148_950_000))

    static let all: [EndpointCase] = [
        EndpointCase(
            name: "getTransactionInfo", method: "GET", path: "/inApps/v1/transactions/1234", fixture: "transactionInfoResponse",
            call: { try sortedJSON(await $0.getTransactionInfo(transactionId: "1234")) },
            expected: decodeAndEncode(TransactionInfoResponse.self)),
        EndpointCase(
            name: "getTransactionHistory v2 with every filter", method: "GET", path: "/inApps/v2/history/1234",
            query: "revision=revision%20input&startDate=1698148900000&endDate=1698148950000&productId=com.example.1&productId=com.example.2"
                + "&productType=CONSUMABLE&productType=AUTO_RENEWABLE&sort=ASCENDING&subscriptionGroupIdentifier=sub_group_id"
                + "&subscriptionGroupIdentifier=sub_group_id_2&inAppOwnershipType=FAMILY_SHARED&revoked=false",
            fixture: "transactionHistoryResponse",
            call: {
                let filter = TransactionHistoryRequest(
                    startDate: start, endDate: end, productIds: ["com.example.1", "com.example.2"],
                    productTypes: [.consumable, .autoRenewable], sort: .ascending,
                    subscriptionGroupIdentifiers: ["sub_group_id", "sub_group_id_2"], inAppOwnershipType: .familyShared,
                    revoked: false)
                return try sortedJSON(
                    await $0.getTransactionHistory(
                        transactionId: "1234", revision: "revision input", filter: filter, version: .v2))
            },
            expected: decodeAndEncode(HistoryResponse.self)),
        EndpointCase(
            name: "getTransactionHistory v1", method: "GET", path: "/inApps/v1/history/1234", query: "revision=abc",
            fixture: "transactionHistoryResponse",
            call: {
                try sortedJSON(
                    await $0.getTransactionHistory(
                        transactionId: "1234", revision: "abc", filter: TransactionHistoryRequest(), version: .v1))
            },
            expected: decodeAndEncode(HistoryResponse.self)),
        EndpointCase(
            name: "getAppTransactionInfo", method: "GET", path: "/inApps/v1/transactions/appTransactions/1234",
            fixture: "appTransactionInfoResponse",
            call: { try sortedJSON(await $0.getAppTransactionInfo(transactionId: "1234")) },
            expected: decodeAndEncode(AppTransactionInfoResponse.self)),
        EndpointCase(
            name: "finishTransaction", method: "POST", path: "/inApps/v1/transactions/1234/finish",
            call: {
                try await $0.finishTransaction(transactionId: "1234")
                return nil
            }),
        EndpointCase(
            name: "lookUpOrderId", method: "GET", path: "/inApps/v1/lookup/W002182", fixture: "lookupOrderIdResponse",
            call: { try sortedJSON(await $0.lookUpOrderId(orderId: "W002182")) },
            expected: decodeAndEncode(OrderLookupResponse.self)),
        EndpointCase(
            name: "getRefundHistory", method: "GET", path: "/inApps/v2/refund/lookup/555555", query: "revision=revision%20input",
            fixture: "getRefundHistoryResponse",
            call: { try sortedJSON(await $0.getRefundHistory(transactionId: "555555", revision: "revision input")) },
            expected: decodeAndEncode(RefundHistoryResponse.self)),
        EndpointCase(
            name: "setAppAccountToken", method: "PUT", path: "/inApps/v1/transactions/49571273/appAccountToken",
            body: #"{"appAccountToken":"7389a31a-fb6d-4569-a2a6-db7d85d84813"}"#, contentType: "application/json",
            call: {
                try await $0.setAppAccountToken(
                    originalTransactionId: "49571273",
                    request: UpdateAppAccountTokenRequest(appAccountToken: "7389a31a-fb6d-4569-a2a6-db7d85d84813"))
                return nil
            }),
        EndpointCase(
            name: "sendConsumptionInformation v2", method: "PUT", path: "/inApps/v2/transactions/consumption/49571273",
            body:
                #"{"customerConsented":true,"consumptionPercentage":50000,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED","sampleContentProvided":false}"#,
            contentType: "application/json",
            call: {
                try await $0.sendConsumptionInformation(
                    transactionId: "49571273",
                    request: ConsumptionRequest(
                        customerConsented: true, consumptionPercentage: 50000, deliveryStatus: .delivered,
                        refundPreference: .grantProrated, sampleContentProvided: false))
                return nil
            }),
        EndpointCase(
            name: "sendConsumptionData v1", method: "PUT", path: "/inApps/v1/transactions/consumption/49571273",
            body:
                #"{"customerConsented":true,"consumptionStatus":3,"platform":2,"sampleContentProvided":false,"deliveryStatus":4,"appAccountToken":"","accountTenure":5,"playTime":6,"lifetimeDollarsRefunded":7,"lifetimeDollarsPurchased":7,"userStatus":4,"refundPreference":3}"#,
            contentType: "application/json",
            call: {
                try await $0.sendConsumptionData(
                    transactionId: "49571273",
                    request: ConsumptionRequestV1(
                        customerConsented: true, consumptionStatus: ConsumptionStatus(rawValue: 3),
                        platform: Platform(rawValue: 2), sampleContentProvided: false,
                        deliveryStatus: DeliveryStatusV1(rawValue: 4), appAccountToken: "",
                        accountTenure: AccountTenure(rawValue: 5), playTime: PlayTime(rawValue: 6),
                        lifetimeDollarsRefunded: LifetimeDollarsRefunded(rawValue: 7),
                        lifetimeDollarsPurchased: LifetimeDollarsPurchased(rawValue: 7),
                        userStatus: UserStatus(rawValue: 4), refundPreference: RefundPreferenceV1(rawValue: 3)))
                return nil
            }),
        EndpointCase(
            name: "getAllSubscriptionStatuses with statuses", method: "GET", path: "/inApps/v1/subscriptions/4321",
            query: "status=2&status=1", fixture: "getAllSubscriptionStatusesResponse",
            call: { try sortedJSON(await $0.getAllSubscriptionStatuses(transactionId: "4321", statuses: [.expired, .active])) },
            expected: decodeAndEncode(StatusResponse.self)),
        EndpointCase(
            name: "extendSubscriptionRenewalDate", method: "PUT", path: "/inApps/v1/subscriptions/extend/4124214",
            body: #"{"extendByDays":45,"extendReasonCode":1,"requestIdentifier":"fdf964a4-233b-486c-aac1-97d8d52688ac"}"#,
            contentType: "application/json", fixture: "extendSubscriptionRenewalDateResponse",
            call: {
                try sortedJSON(
                    await $0.extendSubscriptionRenewalDate(
                        originalTransactionId: "4124214",
                        request: ExtendRenewalDateRequest(
                            extendByDays: 45, extendReasonCode: .customerSatisfaction,
                            requestIdentifier: "fdf964a4-233b-486c-aac1-97d8d52688ac")))
            },
            expected: decodeAndEncode(ExtendRenewalDateResponse.self)),
        EndpointCase(
            name: "extendRenewalDateForAllActiveSubscribers", method: "POST", path: "/inApps/v1/subscriptions/extend/mass",
            body:
                #"{"extendByDays":45,"extendReasonCode":1,"requestIdentifier":"fdf964a4-233b-486c-aac1-97d8d52688ac","storefrontCountryCodes":["USA","MEX"],"productId":"com.example.productId"}"#,
            contentType: "application/json", fixture: "extendRenewalDateForAllActiveSubscribersResponse",
            call: {
                try sortedJSON(
                    await $0.extendRenewalDateForAllActiveSubscribers(
                        request: MassExtendRenewalDateRequest(
                            extendByDays: 45, extendReasonCode: .customerSatisfaction,
                            requestIdentifier: "fdf964a4-233b-486c-aac1-97d8d52688ac", storefrontCountryCodes: ["USA", "MEX"],
                            productId: "com.example.productId")))
            },
            expected: decodeAndEncode(MassExtendRenewalDateResponse.self)),
        EndpointCase(
            name: "getStatusOfSubscriptionRenewalDateExtensions", method: "GET",
            path: "/inApps/v1/subscriptions/extend/mass/com.example.product/20fba8a0-2b80-4a7d-a17f-85c1854727f8",
            fixture: "getStatusOfSubscriptionRenewalDateExtensionsResponse",
            call: {
                try sortedJSON(
                    await $0.getStatusOfSubscriptionRenewalDateExtensions(
                        productId: "com.example.product", requestIdentifier: "20fba8a0-2b80-4a7d-a17f-85c1854727f8"))
            },
            expected: decodeAndEncode(MassExtendRenewalDateStatusResponse.self)),
        EndpointCase(
            name: "getNotificationHistory", method: "POST", path: "/inApps/v1/notifications/history",
            query: "paginationToken=a036bc0e-52b8-4bee-82fc-8c24cb6715d6",
            body:
                #"{"startDate":1698148900000,"endDate":1698148950000,"notificationType":"SUBSCRIBED","notificationSubtype":"INITIAL_BUY","transactionId":"999733843","onlyFailures":true}"#,
            contentType: "application/json", fixture: "getNotificationHistoryResponse",
            call: {
                try sortedJSON(
                    await $0.getNotificationHistory(
                        paginationToken: "a036bc0e-52b8-4bee-82fc-8c24cb6715d6",
                        request: NotificationHistoryRequest(
                            startDate: start, endDate: end, notificationType: .subscribed, notificationSubtype: .initialBuy,
                            transactionId: "999733843", onlyFailures: true)))
            },
            expected: decodeAndEncode(NotificationHistoryResponse.self)),
        EndpointCase(
            name: "requestTestNotification", method: "POST", path: "/inApps/v1/notifications/test",
            fixture: "requestTestNotificationResponse",
            call: { try sortedJSON(await $0.requestTestNotification()) },
            expected: decodeAndEncode(SendTestNotificationResponse.self)),
        EndpointCase(
            name: "getTestNotificationStatus", method: "GET", path: "/inApps/v1/notifications/test/8cd2974c-f905-492a-bf9a-b2f47c791d19",
            fixture: "getTestNotificationStatusResponse",
            call: { try sortedJSON(await $0.getTestNotificationStatus(testNotificationToken: "8cd2974c-f905-492a-bf9a-b2f47c791d19")) },
            expected: decodeAndEncode(CheckTestNotificationResponse.self)),
        EndpointCase(
            name: "uploadImage", method: "PUT", path: "/inApps/v1/messaging/image/a1b2c3d4-0000-4000-8000-00000000000a",
            query: "imageSize=FULL_SIZE", contentType: "image/png", rawBody: Data([0x89, 0x50, 0x4E, 0x47]),
            call: {
                try await $0.uploadImage(imageIdentifier: imageId, image: Data([0x89, 0x50, 0x4E, 0x47]), imageSize: .fullSize)
                return nil
            }),
        EndpointCase(
            name: "deleteImage", method: "DELETE", path: "/inApps/v1/messaging/image/a1b2c3d4-0000-4000-8000-00000000000a",
            call: {
                try await $0.deleteImage(imageIdentifier: imageId)
                return nil
            }),
        EndpointCase(
            name: "getImageList", method: "GET", path: "/inApps/v1/messaging/image/list", fixture: "getImageListResponse",
            call: { try sortedJSON(await $0.getImageList()) }, expected: decodeAndEncode(GetImageListResponse.self)),
        EndpointCase(
            name: "uploadMessage", method: "PUT", path: "/inApps/v1/messaging/message/a1b2c3d4-0000-4000-8000-00000000000b",
            body: #"{"header":"Header text","body":"Body text","headerPosition":"ABOVE_BODY"}"#, contentType: "application/json",
            call: {
                try await $0.uploadMessage(
                    messageIdentifier: messageId,
                    body: UploadMessageRequestBody(header: "Header text", body: "Body text", headerPosition: .aboveBody))
                return nil
            }),
        EndpointCase(
            name: "deleteMessage", method: "DELETE", path: "/inApps/v1/messaging/message/a1b2c3d4-0000-4000-8000-00000000000b",
            call: {
                try await $0.deleteMessage(messageIdentifier: messageId)
                return nil
            }),
        EndpointCase(
            name: "getMessageList", method: "GET", path: "/inApps/v1/messaging/message/list", fixture: "getMessageListResponse",
            call: { try sortedJSON(await $0.getMessageList()) }, expected: decodeAndEncode(GetMessageListResponse.self)),
        EndpointCase(
            name: "configureDefaultMessage", method: "PUT", path: "/inApps/v1/messaging/default/com.example.product/en-US",
            body: #"{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"}"#, contentType: "application/json",
            call: {
                try await $0.configureDefaultMessage(
                    productId: "com.example.product", locale: "en-US",
                    request: DefaultConfigurationRequest(messageIdentifier: "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"))
                return nil
            }),
        EndpointCase(
            name: "deleteDefaultMessage", method: "DELETE", path: "/inApps/v1/messaging/default/com.example.product/en-US",
            call: {
                try await $0.deleteDefaultMessage(productId: "com.example.product", locale: "en-US")
                return nil
            }),
        EndpointCase(
            name: "getDefaultMessage", method: "GET", path: "/inApps/v1/messaging/default/com.example.product/en-US",
            fixture: "getDefaultMessageResponse",
            call: { try sortedJSON(await $0.getDefaultMessage(productId: "com.example.product", locale: "en-US")) },
            expected: decodeAndEncode(DefaultConfigurationResponse.self)),
        EndpointCase(
            name: "configureRealtimeURL", method: "PUT", path: "/inApps/v1/messaging/realtime/url",
            body: #"{"realtimeURL":"https://example.com/retention"}"#, contentType: "application/json",
            call: {
                try await $0.configureRealtimeURL(request: RealtimeUrlRequest(realtimeURL: "https://example.com/retention"))
                return nil
            }),
        EndpointCase(
            name: "deleteRealtimeURL", method: "DELETE", path: "/inApps/v1/messaging/realtime/url",
            call: {
                try await $0.deleteRealtimeURL()
                return nil
            }),
        EndpointCase(
            name: "getRealtimeURL", method: "GET", path: "/inApps/v1/messaging/realtime/url", fixture: "getRealtimeUrlResponse",
            call: { try sortedJSON(await $0.getRealtimeURL()) }, expected: decodeAndEncode(RealtimeUrlResponse.self)),
        EndpointCase(
            name: "initiatePerformanceTest", method: "POST", path: "/inApps/v1/messaging/performanceTest",
            body: #"{"originalTransactionId":"1234"}"#, contentType: "application/json", fixture: "performanceTestResponse",
            call: { try sortedJSON(await $0.initiatePerformanceTest(request: PerformanceTestRequest(originalTransactionId: "1234"))) },
            expected: decodeAndEncode(PerformanceTestResponse.self)),
        EndpointCase(
            name: "getPerformanceTestResults", method: "GET", path: "/inApps/v1/messaging/performanceTest/result/req-1",
            fixture: "performanceTestResultResponse",
            call: { try sortedJSON(await $0.getPerformanceTestResults(requestId: "req-1")) },
            expected: decodeAndEncode(PerformanceTestResultResponse.self)),
    ]
}
