import AppStoreModels
import Foundation
import Testing

/// The V2 notification fixtures decode to the values Apple's own tests expect.
@Suite struct NotificationDecodingTests {
    private let signedDate = Date(appStoreMilliseconds: Int64(1_698_148_900_000))

    @Test func subscribedNotificationCarriesDataAndNoOtherSection() throws {
        let notification = try ModelFixtures.decode(ResponseBodyV2DecodedPayload.self, from: "signedNotification")
        #expect(notification.notificationType == .subscribed)
        #expect(notification.subtype == .initialBuy)
        #expect(notification.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(notification.version == "2.0")
        #expect(notification.signedDate == signedDate)
        #expect(
            notification.data
                == NotificationData(
                    environment: .localTesting, appAppleId: 41234, bundleId: "com.example", bundleVersion: "1.2.3",
                    signedTransactionInfo: "signed_transaction_info_value",
                    signedRenewalInfo: "signed_renewal_info_value",
                    status: .active))
        #expect(notification.summary == nil)
        #expect(notification.externalPurchaseToken == nil)
        #expect(notification.appData == nil)
    }

    @Test func consumptionRequestCarriesItsReasonAndNoSubtype() throws {
        let notification = try ModelFixtures.decode(
            ResponseBodyV2DecodedPayload.self, from: "signedConsumptionRequestNotification")
        #expect(notification.notificationType == .consumptionRequest)
        #expect(notification.subtype == nil)
        #expect(notification.data?.consumptionRequestReason == .unintendedPurchase)
        #expect(notification.data?.bundleId == "com.example")
    }

    @Test func renewalExtensionSummaryDecodes() throws {
        let notification = try ModelFixtures.decode(
            ResponseBodyV2DecodedPayload.self, from: "signedSummaryNotification")
        #expect(notification.notificationType == .renewalExtension)
        #expect(notification.subtype == .summary)
        #expect(notification.data == nil)
        #expect(
            notification.summary
                == Summary(
                    environment: .localTesting, appAppleId: 41234, bundleId: "com.example",
                    productId: "com.example.product",
                    requestIdentifier: "efb27071-45a4-4aca-9854-2a1e9146f265",
                    storefrontCountryCodes: ["CAN", "USA", "MEX"],
                    succeededCount: 5, failedCount: 2))
    }

    @Test func externalPurchaseTokenDecodesAndKnowsItsEnvironment() throws {
        let production = try ModelFixtures.decode(
            ResponseBodyV2DecodedPayload.self, from: "signedExternalPurchaseTokenNotification")
        #expect(production.notificationType == .externalPurchaseToken)
        #expect(production.subtype == .unreported)
        #expect(
            production.externalPurchaseToken
                == ExternalPurchaseToken(
                    externalPurchaseId: "b2158121-7af9-49d4-9561-1f588205523e",
                    tokenCreationDate: Date(appStoreMilliseconds: Int64(1_698_148_950_000)), appAppleId: 55555,
                    bundleId: "com.example"))
        #expect(production.externalPurchaseToken?.isSandbox == false)

        let sandbox = try ModelFixtures.decode(
            ResponseBodyV2DecodedPayload.self, from: "signedExternalPurchaseTokenSandboxNotification")
        #expect(sandbox.externalPurchaseToken?.externalPurchaseId == "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e")
        #expect(sandbox.externalPurchaseToken?.isSandbox == true)
    }

    @Test func rescindConsentCarriesAppData() throws {
        let notification = try ModelFixtures.decode(
            ResponseBodyV2DecodedPayload.self, from: "signedRescindConsentNotification")
        #expect(notification.notificationType == .rescindConsent)
        #expect(notification.subtype == nil)
        #expect(
            notification.appData
                == AppData(
                    appAppleId: 41234, bundleId: "com.example", environment: .localTesting,
                    signedAppTransactionInfo: "signed_app_transaction_info_value"))
    }

    @Test func appDataDecodesOnItsOwn() throws {
        let appData = try ModelFixtures.decode(AppData.self, from: "appData")
        #expect(
            appData
                == AppData(
                    appAppleId: 987_654_321, bundleId: "com.example", environment: .sandbox,
                    signedAppTransactionInfo: "signed-app-transaction-info"))
    }

    @Test func webhookBodyDecodesItsSignedPayload() throws {
        let body = try JSONDecoder().decode(ResponseBodyV2.self, from: Data(#"{"signedPayload":"a.b.c"}"#.utf8))
        #expect(body.signedPayload == "a.b.c")
    }

    @Test func unknownNotificationTypeAndSubtypeRoundTrip() throws {
        let json = #"{"notificationType":"SUBSCRIPTION_PAUSED","subtype":"FOR_A_WHILE","version":"2.0"}"#
        let notification = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: Data(json.utf8))
        #expect(notification.notificationType == NotificationTypeV2(rawValue: "SUBSCRIPTION_PAUSED"))
        #expect(notification.notificationType?.isKnown == false)
        #expect(notification.subtype?.rawValue == "FOR_A_WHILE")
        let reencoded = try JSONEncoder().encode(notification)
        #expect(
            ModelFixtures.difference(try ModelFixtures.tree(reencoded), try ModelFixtures.tree(Data(json.utf8))) == nil)
    }

    @Test(
        arguments: [
            ("signedNotification", "com.example", 41234, AppStoreEnvironment.localTesting),
            ("signedSummaryNotification", "com.example", 41234, .localTesting),
            ("signedExternalPurchaseTokenNotification", "com.example", 55555, .production),
            ("signedExternalPurchaseTokenSandboxNotification", "com.example", 55555, .sandbox),
            ("signedRescindConsentNotification", "com.example", 41234, .localTesting),
        ] as [(String, String, Int64, AppStoreEnvironment)])
    func appContextComesFromTheSectionPresent(
        file: String, bundleId: String, appAppleId: Int64, environment: AppStoreEnvironment
    ) throws {
        let notification = try ModelFixtures.decode(ResponseBodyV2DecodedPayload.self, from: file)
        #expect(
            notification.appContext
                == ResponseBodyV2DecodedPayload.AppContext(
                    bundleId: bundleId, appAppleId: appAppleId, environment: environment))
    }

    @Test func appContextIsEmptyWithoutAnySection() {
        #expect(
            ResponseBodyV2DecodedPayload(notificationType: .test).appContext
                == ResponseBodyV2DecodedPayload.AppContext())
    }
}
