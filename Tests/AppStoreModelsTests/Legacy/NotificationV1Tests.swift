import AppStoreModels
import Foundation
import Testing

@Suite struct NotificationV1Tests {
    private func decode(_ file: String) throws -> NotificationV1 {
        try JSONDecoder().decode(NotificationV1.self, from: try LegacyFixtures.data("notifications-v1", file))
    }

    @Test(arguments: LegacyFixtures.notificationFiles)
    func everyFixtureDecodesAndSurvivesARoundTrip(file: String) throws {
        let notification = try decode(file)
        #expect(notification.notificationType?.isKnown == true)
        let again = try JSONDecoder().decode(NotificationV1.self, from: try JSONEncoder().encode(notification))
        #expect(again == notification)
    }

    @Test func didChangeRenewalStatusCarriesUnifiedReceiptAndChangeDate() throws {
        let notification = try decode("imdhemy-server-notification-DID_CHANGE_RENEWAL_STATUS.json")
        #expect(notification.notificationType == .didChangeRenewalStatus)
        #expect(notification.environment?.rawValue == "Production")
        #expect(notification.environment?.environment == .production)
        #expect(notification.autoRenewStatus == false)
        #expect(notification.autoRenewStatusChangeDate == LegacyFixtures.milliseconds(1_606_293_002_000))
        #expect(notification.autoRenewProductId == "one_month_subscription")
        #expect(notification.bid == "com.some.thing")
        #expect(notification.bvrs == "34")
        let unified = try #require(notification.unifiedReceipt)
        #expect(unified.status == .valid)
        #expect(unified.environment == .production)
        let latest = try #require(unified.latestReceiptInfo)
        #expect(latest.count == 54)
        #expect(latest.first?.transactionId == "1000000746095599")
        #expect(latest.first?.expiresDate == LegacyFixtures.milliseconds(1_606_293_062_000))
        #expect(latest.contains { $0.isUpgraded == true })
        #expect(latest.allSatisfy { $0.originalTransactionId == "1000000723811158" })
        let renewal = try #require(unified.pendingRenewalInfo?.first)
        #expect(renewal.expirationIntent == .customerCancelled)
        #expect(renewal.isInBillingRetryPeriod == false)
        #expect(renewal.autoRenewStatus == false)
    }

    @Test func didRenewMatchesUpstreamAssertions() throws {
        let notification = try decode("aporat-serverNotificationRequest-DID_RENEW.json")
        #expect(notification.notificationType == .didRenew)
        #expect(notification.environment == .production)
        #expect(notification.autoRenewProductId == "my.app.subscription.monthly")
        #expect(notification.autoRenewStatus == true)
        #expect(notification.bid == "my.app")
        #expect(notification.bvrs == "1.0.0")
        #expect(notification.originalTransactionId == "100000000000000")
        #expect(notification.password == "dummy_shared_secret")
        #expect(notification.unifiedReceipt?.latestReceiptInfo?.count == 1)
        #expect(notification.unifiedReceipt?.pendingRenewalInfo?.count == 1)
    }

    @Test func preUnifiedReceiptShapeToleratesEmptyObjectsAndEmptyDates() throws {
        let notification = try decode("app-vise-request-INITIAL_BUY-legacy-shape.json")
        #expect(notification.notificationType == .initialBuy)
        #expect(notification.environment == .sandbox)
        #expect(notification.latestReceiptInfo == [])
        #expect(notification.autoRenewStatusChangeDate == nil)
        #expect(notification.cancellationDate == LegacyFixtures.milliseconds(1_522_134_672_000))
        let expired = try #require(notification.latestExpiredReceiptInfo)
        #expect(expired.transactionId == "1000000577069202")
        #expect(expired.cancellationReason == "0")
        #expect(expired.expiresDate == LegacyFixtures.milliseconds(1_570_607_006_000))
        #expect(expired.appItemId == "APP_ITEM_ID")
        let renewal = try #require(notification.pendingRenewalInfo?.first)
        #expect(renewal.expirationIntent == nil)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.priceConsentStatus == false)
        #expect(renewal.gracePeriodExpiresDate == nil)
    }

    @Test func everyNotificationTypeOfTheMissionIsKnownAndUnknownOnesRoundTrip() throws {
        let names = [
            "INITIAL_BUY", "DID_RENEW", "DID_FAIL_TO_RENEW", "DID_RECOVER", "RENEWAL", "CANCEL", "REFUND",
            "REVOKE", "DID_CHANGE_RENEWAL_STATUS", "DID_CHANGE_RENEWAL_PREF", "INTERACTIVE_RENEWAL",
            "PRICE_INCREASE_CONSENT", "CONSUMPTION_REQUEST",
        ]
        #expect(Set(NotificationTypeV1.known.map(\.rawValue)) == Set(names))
        let json = Data(#"{"notification_type": "SOMETHING_NEW", "environment": "Sandbox", "auto_renew_status": true}"#.utf8)
        let notification = try JSONDecoder().decode(NotificationV1.self, from: json)
        #expect(notification.notificationType?.rawValue == "SOMETHING_NEW")
        #expect(notification.notificationType?.isKnown == false)
        #expect(notification.autoRenewStatus == true)
    }

    @Test func refundNotificationWrittenFromApplesFieldReferenceDecodes() throws {
        let json = Data(
            """
            {"notification_type": "REFUND", "password": "s3cret", "environment": "PROD", "bid": "com.example",
             "bvrs": "12", "auto_renew_adam_id": "1234567890", "auto_renew_product_id": "monthly",
             "auto_renew_status": "false", "expiration_intent": 1,
             "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt": "MIIT",
               "latest_receipt_info": [{"quantity": "1", "product_id": "monthly", "transaction_id": "2",
                 "original_transaction_id": "1", "purchase_date_ms": "1600000000000",
                 "cancellation_date": "2020-09-14 12:26:40 Etc/GMT", "cancellation_date_ms": "1600086400000",
                 "cancellation_date_pst": "2020-09-14 05:26:40 America/Los_Angeles", "cancellation_reason": "1",
                 "in_app_ownership_type": "FAMILY_SHARED"}],
               "pending_renewal_info": [{"auto_renew_status": "0", "grace_period_expires_date_ms": "1600100000000",
                 "price_increase_status": "1", "original_transaction_id": "1", "product_id": "monthly"}]}}
            """.utf8)
        let notification = try JSONDecoder().decode(NotificationV1.self, from: json)
        #expect(notification.notificationType == .refund)
        #expect(notification.expirationIntent == .customerCancelled)
        let transaction = try #require(notification.unifiedReceipt?.latestReceiptInfo?.first)
        #expect(transaction.cancellationDate == LegacyFixtures.milliseconds(1_600_086_400_000))
        #expect(transaction.cancellationReason == "1")
        #expect(transaction.inAppOwnershipType == .familyShared)
        let renewal = try #require(notification.unifiedReceipt?.pendingRenewalInfo?.first)
        #expect(renewal.gracePeriodExpiresDate == LegacyFixtures.milliseconds(1_600_100_000_000))
        #expect(renewal.priceIncreaseStatus == true)
    }
}
