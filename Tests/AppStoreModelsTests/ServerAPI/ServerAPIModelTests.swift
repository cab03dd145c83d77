import AppStoreModels
import Foundation
import Testing

/// App Store Server API bodies decode to the values Apple's client tests expect, and requests
/// encode as Apple expects.
@Suite struct ServerAPIModelTests {
    @Test func transactionHistoryResponseDecodes() throws {
        let history = try ModelFixtures.decode(HistoryResponse.self, from: "transactionHistoryResponse")
        #expect(history.revision == "revision_output")
        #expect(history.hasMore == true)
        #expect(history.bundleId == "com.example")
        #expect(history.appAppleId == 323_232)
        #expect(history.environment == .localTesting)
        #expect(history.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
    }

    @Test func unknownEnvironmentKeepsItsRawValue() throws {
        let history = try ModelFixtures.decode(
            HistoryResponse.self, from: "transactionHistoryResponseWithMalformedEnvironment")
        #expect(history.environment?.rawValue == "LocalTestingxxx")
        #expect(history.environment?.isKnown == false)
        #expect(history.appAppleId == 323_232)
    }

    @Test(arguments: ["models", "python-variants/models"])
    func nonNumericAppAppleIdIsADecodingError(folder: String) throws {
        let data = try ModelFixtures.data("transactionHistoryResponseWithMalformedAppAppleId", folder: folder)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HistoryResponse.self, from: data) }
    }

    @Test func malformedAppAppleIdErrorNamesTheField() throws {
        let data = try ModelFixtures.data("transactionHistoryResponseWithMalformedAppAppleId")
        do {
            _ = try JSONDecoder().decode(HistoryResponse.self, from: data)
            Issue.record("decoding a non-numeric appAppleId succeeded")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["appAppleId"])
        }
    }

    @Test func subscriptionStatusesDecode() throws {
        let response = try ModelFixtures.decode(StatusResponse.self, from: "getAllSubscriptionStatusesResponse")
        #expect(response.environment == .localTesting)
        #expect(response.bundleId == "com.example")
        #expect(response.appAppleId == 5_454_545)
        let groups = try #require(response.data)
        #expect(groups.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
        #expect(groups[0].lastTransactions?.map(\.status) == [.active, .revoked])
        #expect(
            groups[1].lastTransactions == [
                LastTransactionsItem(
                    status: .expired, originalTransactionId: "3413453",
                    signedTransactionInfo: "signed_transaction_three",
                    signedRenewalInfo: "signed_renewal_three")
            ])
    }

    @Test func notificationHistoryResponseDecodesAttempts() throws {
        let response = try ModelFixtures.decode(
            NotificationHistoryResponse.self, from: "getNotificationHistoryResponse")
        #expect(response.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a")
        #expect(response.hasMore == true)
        let first = try #require(response.notificationHistory?.first)
        #expect(first.signedPayload == "signed_payload_one")
        #expect(
            first.sendAttempts == [
                SendAttemptItem(
                    attemptDate: Date(appStoreMilliseconds: Int64(1_698_148_900_000)), sendAttemptResult: .noResponse),
                SendAttemptItem(
                    attemptDate: Date(appStoreMilliseconds: Int64(1_698_148_950_000)), sendAttemptResult: .success),
            ])
        #expect(response.notificationHistory?.last?.sendAttempts?.first?.sendAttemptResult == .circularRedirect)
    }

    @Test func notificationHistoryRequestTruncatesSubMillisecondDates() throws {
        let request = NotificationHistoryRequest(
            startDate: Date(timeIntervalSince1970: 1_698_148_900.0009),
            endDate: Date(timeIntervalSince1970: 1_698_148_950.000001),
            notificationType: .subscribed, notificationSubtype: .initialBuy, transactionId: "999733843",
            onlyFailures: true)
        let tree = try #require(try ModelFixtures.tree(try JSONEncoder().encode(request)) as? [String: Any])
        let expected: [String: Any] = [
            "startDate": 1_698_148_900_000, "endDate": 1_698_148_950_000, "notificationType": "SUBSCRIBED",
            "notificationSubtype": "INITIAL_BUY", "transactionId": "999733843", "onlyFailures": true,
        ]
        #expect(ModelFixtures.difference(tree, expected) == nil)
        // Whole milliseconds on the wire, whatever order the encoder writes the keys in.
        let json = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        #expect(json.contains("1698148900000") && !json.contains("1698148900000."))
    }

    @Test func smallResponsesDecode() throws {
        #expect(
            try ModelFixtures.decode(
                MassExtendRenewalDateResponse.self, from: "extendRenewalDateForAllActiveSubscribersResponse"
            )
            .requestIdentifier == "758883e8-151b-47b7-abd0-60c4d804c2f5")
        #expect(
            try ModelFixtures.decode(ExtendRenewalDateResponse.self, from: "extendSubscriptionRenewalDateResponse")
                == ExtendRenewalDateResponse(
                    originalTransactionId: "2312412", webOrderLineItemId: "9993", success: true,
                    effectiveDate: Date(appStoreMilliseconds: Int64(1_698_148_900_000))))
        #expect(
            try ModelFixtures.decode(
                MassExtendRenewalDateStatusResponse.self, from: "getStatusOfSubscriptionRenewalDateExtensionsResponse")
                == MassExtendRenewalDateStatusResponse(
                    requestIdentifier: "20fba8a0-2b80-4a7d-a17f-85c1854727f8", complete: true,
                    completeDate: Date(appStoreMilliseconds: Int64(1_698_148_900_000)),
                    succeededCount: 30, failedCount: 2))
        let lookup = try ModelFixtures.decode(OrderLookupResponse.self, from: "lookupOrderIdResponse")
        #expect(lookup.status == .invalid)
        #expect(lookup.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
        #expect(
            try ModelFixtures.decode(SendTestNotificationResponse.self, from: "requestTestNotificationResponse")
                .testNotificationToken == "ce3af791-365e-4c60-841b-1674b43c1609")
        let check = try ModelFixtures.decode(
            CheckTestNotificationResponse.self, from: "getTestNotificationStatusResponse")
        #expect(check.signedPayload == "signed_payload")
        #expect(check.sendAttempts?.map(\.sendAttemptResult) == [.noResponse, .success])
        #expect(
            try ModelFixtures.decode(TransactionInfoResponse.self, from: "transactionInfoResponse")
                .signedTransactionInfo != nil)
        #expect(
            try ModelFixtures.decode(AppTransactionInfoResponse.self, from: "appTransactionInfoResponse")
                .signedAppTransactionInfo != nil)
        let refunds = try ModelFixtures.decode(RefundHistoryResponse.self, from: "getRefundHistoryResponse")
        #expect(refunds.hasMore == true)
        #expect(refunds.signedTransactions?.isEmpty == false)
    }

    @Test(
        arguments: [
            ("apiException", APIErrorCode.generalInternal, "An unknown error occurred."),
            ("apiTooManyRequestsException", .rateLimitExceeded, "Rate limit exceeded."),
            ("invalidAppAccountTokenUUIDError", .invalidAppAccountTokenUUID, nil),
            ("familyTransactionNotSupportedError", .familyTransactionNotSupported, nil),
            ("transactionIdNotOriginalTransactionId", .transactionIdNotOriginalTransactionId, nil),
            ("invalidTransactionIdError", .invalidTransactionId, "Invalid transaction id."),
            ("transactionIdNotFoundError", .transactionIdNotFound, "Transaction id not found."),
            (
                "appTransactionDoesNotExistError", .appTransactionDoesNotExistError,
                "No AppTransaction exists for the customer."
            ),
        ] as [(String, APIErrorCode, String?)])
    func errorBodiesDecodeToTheirCode(file: String, code: APIErrorCode, message: String?) throws {
        let error = try ModelFixtures.decode(ErrorPayload.self, from: file)
        #expect(error.errorCode == code)
        #expect(error.errorCode?.isKnown == true)
        if let message { #expect(error.errorMessage == message) }
    }

    @Test func unknownErrorCodeKeepsItsNumber() throws {
        let error = try ModelFixtures.decode(ErrorPayload.self, from: "apiUnknownError")
        #expect(error.errorCode?.rawValue == 9_990_000)
        #expect(error.errorCode?.isKnown == false)
        #expect(error.errorMessage == "Testing error.")
    }

    @Test func errorCodesListAllEightySevenWithTheirHTTPStatus() {
        #expect(APIErrorCode.known.count == 87)
        #expect(Set(APIErrorCode.known).count == 87)
        #expect(APIErrorCode.transactionIdNotFound.httpStatus == 404)
        #expect(APIErrorCode.rateLimitExceeded.httpStatus == 429)
        #expect(APIErrorCode.rateLimitExceeded.isRetryable)
        #expect(APIErrorCode.generalInternalRetryable.isRetryable)
        #expect(!APIErrorCode.generalInternal.isRetryable)
        #expect(APIErrorCode.AppTransactionDoesNotExistError.rawValue == 4_040_019)
    }

    @Test func consumptionRequestV1AlwaysSendsAnAppAccountToken() throws {
        let request = ConsumptionRequestV1(
            customerConsented: true, consumptionStatus: .partiallyConsumed, platform: .apple)
        let tree = try #require(try ModelFixtures.tree(try JSONEncoder().encode(request)) as? [String: Any])
        #expect(
            ModelFixtures.difference(
                tree,
                [
                    "customerConsented": true, "consumptionStatus": 2, "platform": 1, "appAccountToken": "",
                ]) == nil)
    }

    @Test func consumptionRequestV2EncodesApplesSpellings() throws {
        let request = ConsumptionRequest(
            customerConsented: true, consumptionPercentage: 25_000, deliveryStatus: .delivered,
            refundPreference: .grantProrated, sampleContentProvided: false)
        let tree = try #require(try ModelFixtures.tree(try JSONEncoder().encode(request)) as? [String: Any])
        #expect(
            ModelFixtures.difference(
                tree,
                [
                    "customerConsented": true, "consumptionPercentage": 25_000, "deliveryStatus": "DELIVERED",
                    "refundPreference": "GRANT_PRORATED", "sampleContentProvided": false,
                ]) == nil)
    }

    @Test func massExtendRequestEncodesTheDocumentedBody() throws {
        let request = MassExtendRenewalDateRequest(
            extendByDays: 45, extendReasonCode: .customerSatisfaction,
            requestIdentifier: "fdf964a4-233b-486c-aac1-97d8d52688ac",
            storefrontCountryCodes: ["USA", "MEX"], productId: "com.example.productId")
        let tree = try #require(try ModelFixtures.tree(try JSONEncoder().encode(request)) as? [String: Any])
        #expect(
            ModelFixtures.difference(
                tree,
                [
                    "extendByDays": 45, "extendReasonCode": 1,
                    "requestIdentifier": "fdf964a4-233b-486c-aac1-97d8d52688ac",
                    "storefrontCountryCodes": ["USA", "MEX"], "productId": "com.example.productId",
                ]) == nil)
    }

    @Test func transactionHistoryFilterBecomesApplesQueryParameters() {
        let request = TransactionHistoryRequest(
            startDate: Date(appStoreMilliseconds: Int64(123_455)), endDate: Date(appStoreMilliseconds: Int64(123_456)),
            productIds: ["com.example.1", "com.example.2"], productTypes: [.consumable, .autoRenewable],
            sort: .ascending, subscriptionGroupIdentifiers: ["sub_group_id", "sub_group_id_2"],
            inAppOwnershipType: .familyShared, revoked: false)
        let query = request.queryItems(revision: "revision_input").map { "\($0.name)=\($0.value ?? "")" }
        #expect(
            query == [
                "revision=revision_input", "startDate=123455", "endDate=123456", "productId=com.example.1",
                "productId=com.example.2", "productType=CONSUMABLE", "productType=AUTO_RENEWABLE", "sort=ASCENDING",
                "subscriptionGroupIdentifier=sub_group_id", "subscriptionGroupIdentifier=sub_group_id_2",
                "inAppOwnershipType=FAMILY_SHARED", "revoked=false",
            ])
        #expect(TransactionHistoryRequest.ProductType(.autoRenewableSubscription) == .autoRenewable)
        #expect(TransactionHistoryRequest.ProductType(ProductType(rawValue: "Bundle")) == nil)
    }
}
