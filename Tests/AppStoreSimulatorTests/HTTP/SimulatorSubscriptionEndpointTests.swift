import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Synchronization
import Testing

@testable import AppStoreSimulator

@Suite("Simulated App Store: subscription and notification endpoints over loopback")
struct SimulatorSubscriptionEndpointTests {
    @Test func statusesGroupTheAccountsSubscriptionsWithSignedRenewalInfo() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let response = try await client.getAllSubscriptionStatuses(transactionId: SimulatorHTTPFixture.refundedCoins)
            #expect(response.bundleId == SimulatorHTTPFixture.bundleId)
            let group = try #require(response.data?.first)
            #expect(group.subscriptionGroupIdentifier == "G1")
            let item = try #require(group.lastTransactions?.first)
            #expect(item.status == .active)
            #expect(item.originalTransactionId == SimulatorHTTPFixture.weeklyOriginal)
            let verifier = try fixture.verifier()
            let signedRenewal = try #require(item.signedRenewalInfo)
            let renewal = try #require(await verifier.verifyAndDecodeRenewalInfo(signedRenewal, now: fixture.clock.now).payload)
            #expect(renewal.autoRenewStatus == .on)
            #expect(renewal.renewalDate == SimulatorHTTPFixture.start.addingTimeInterval(6 * 86_400))

            let bob = try await client.getAllSubscriptionStatuses(transactionId: SimulatorHTTPFixture.lifetimeUnlock, statuses: [.expired])
            #expect(bob.data?.first?.lastTransactions?.map(\.originalTransactionId) == [SimulatorHTTPFixture.monthlyOriginal])
            let none = try await client.getAllSubscriptionStatuses(transactionId: SimulatorHTTPFixture.lifetimeUnlock, statuses: [.active])
            #expect(none.data?.isEmpty == true)
        }
    }

    @Test func extendingARenewalDateMovesTheTruthOnceAndNotifies() async throws {
        let created = Mutex<[NotificationTypeV2]>([])
        let fixture = try SimulatorHTTPFixture { configuration in
            configuration.onNotificationCreated = { record in created.withLock { $0.append(record.notificationType) } }
        }
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let request = ExtendRenewalDateRequest(extendByDays: 10, extendReasonCode: .customerSatisfaction, requestIdentifier: "req-1")
            let first = try await client.extendSubscriptionRenewalDate(originalTransactionId: SimulatorHTTPFixture.weeklyOriginal, request: request)
            let again = try await client.extendSubscriptionRenewalDate(originalTransactionId: SimulatorHTTPFixture.weeklyOriginal, request: request)
            let expected = SimulatorHTTPFixture.start.addingTimeInterval(16 * 86_400)
            #expect(first.success == true)
            #expect(first.effectiveDate == expected)
            #expect(again == first)
            #expect(fixture.store.subscription(SimulatorHTTPFixture.weeklyOriginal)?.expiresDate == expected)
            #expect(fixture.store.transaction(id: SimulatorHTTPFixture.weeklyLatest)?.expiresDate == expected)
            #expect(created.withLock { $0 } == [.renewalExtended])

            let tooLong = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.extendSubscriptionRenewalDate(
                    originalTransactionId: SimulatorHTTPFixture.weeklyOriginal,
                    request: ExtendRenewalDateRequest(extendByDays: 91, extendReasonCode: .other, requestIdentifier: "req-2"))
            }
            #expect(tooLong?.apiErrorCode == .invalidExtendByDays)
            let expired = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.extendSubscriptionRenewalDate(
                    originalTransactionId: SimulatorHTTPFixture.monthlyOriginal,
                    request: ExtendRenewalDateRequest(extendByDays: 5, extendReasonCode: .other, requestIdentifier: "req-3"))
            }
            #expect(expired?.apiErrorCode == .subscriptionExtensionIneligible)
            let unknown = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.extendSubscriptionRenewalDate(
                    originalTransactionId: "424242",
                    request: ExtendRenewalDateRequest(extendByDays: 5, extendReasonCode: .other, requestIdentifier: "req-4"))
            }
            #expect(unknown?.apiErrorCode == .originalTransactionIdNotFound)
        }
    }

    @Test func massExtensionExtendsActiveSubscribersAndReportsItsStatus() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let request = MassExtendRenewalDateRequest(
                extendByDays: 3, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "mass-1", storefrontCountryCodes: ["USA"],
                productId: "pro.weekly")
            #expect(try await client.extendRenewalDateForAllActiveSubscribers(request: request).requestIdentifier == "mass-1")
            let status = try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: "pro.weekly", requestIdentifier: "mass-1")
            #expect(status.complete == true)
            #expect(status.succeededCount == 1)
            #expect(status.failedCount == 0)
            #expect(
                fixture.store.subscription(SimulatorHTTPFixture.weeklyOriginal)?.expiresDate
                    == SimulatorHTTPFixture.start.addingTimeInterval(9 * 86_400))
            #expect(fixture.store.allNotifications.last?.notificationType == .renewalExtension)
            let missing = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: "pro.weekly", requestIdentifier: "nope")
            }
            #expect(missing?.apiErrorCode == .statusRequestNotFound)
        }
    }

    @Test func notificationHistoryPagesFiltersAndVerifies() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let range = NotificationHistoryRequest(
                startDate: SimulatorHTTPFixture.start.addingTimeInterval(-179 * 86_400), endDate: SimulatorHTTPFixture.start)
            var token: String?
            var items: [NotificationHistoryResponseItem] = []
            var pages = 0
            repeat {
                let page = try await client.getNotificationHistory(paginationToken: token, request: range)
                items += page.notificationHistory ?? []
                token = page.paginationToken
                pages += 1
                if page.hasMore != true { break }
            } while pages < 10
            #expect(pages == 2)
            #expect(items.count == 29)
            let verifier = try fixture.verifier()
            for item in items {
                let signed = try #require(item.signedPayload)
                #expect(await verifier.verifyAndDecodeNotification(signed, now: fixture.clock.now).payload != nil)
            }

            let failures = try await client.getNotificationHistory(
                paginationToken: nil,
                request: NotificationHistoryRequest(
                    startDate: range.startDate, endDate: range.endDate, onlyFailures: true))
            #expect(failures.notificationHistory?.count == 1)
            #expect(failures.notificationHistory?.first?.sendAttempts?.map(\.sendAttemptResult) == [.timedOut, .timedOut])
            let bob = try await client.getNotificationHistory(
                paginationToken: nil,
                request: NotificationHistoryRequest(
                    startDate: range.startDate, endDate: range.endDate, transactionId: SimulatorHTTPFixture.lifetimeUnlock))
            #expect(bob.notificationHistory?.count == 3)
            let expired = try await client.getNotificationHistory(
                paginationToken: nil,
                request: NotificationHistoryRequest(
                    startDate: range.startDate, endDate: range.endDate, notificationType: .expired, notificationSubtype: .voluntary))
            #expect(expired.notificationHistory?.count == 1)

            let tooOld = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.getNotificationHistory(
                    paginationToken: nil,
                    request: NotificationHistoryRequest(
                        startDate: SimulatorHTTPFixture.start.addingTimeInterval(-200 * 86_400), endDate: SimulatorHTTPFixture.start))
            }
            #expect(tooOld?.apiErrorCode == .startDateTooFarInPast)
            let foreignToken = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.getNotificationHistory(paginationToken: "bm9wZQ", request: range)
            }
            #expect(foreignToken?.apiErrorCode == .invalidPaginationToken)
        }
    }

    @Test func testNotificationIsRecordedHandedToDeliveryAndReported() async throws {
        let created = Mutex<[String]>([])
        let fixture = try SimulatorHTTPFixture { configuration in
            configuration.onNotificationCreated = { record in created.withLock { $0.append(record.testNotificationToken ?? "") } }
        }
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let token = try #require(try await client.requestTestNotification().testNotificationToken)
            #expect(created.withLock { $0 } == [token])
            let record = try #require(fixture.store.testNotification(token: token))
            fixture.store.recordSendAttempt(notificationUUID: record.notificationUUID, at: fixture.clock.now, result: .success)
            let status = try await client.getTestNotificationStatus(testNotificationToken: token)
            #expect(status.sendAttempts?.map(\.sendAttemptResult) == [.success])
            let signed = try #require(status.signedPayload)
            let payload = try #require(await fixture.verifier().verifyAndDecodeNotification(signed, now: fixture.clock.now).payload)
            #expect(payload.notificationType == .test)
            let unknown = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.getTestNotificationStatus(testNotificationToken: "00000000-0000-0000-0000-000000000000_1")
            }
            #expect(unknown?.apiErrorCode == .testNotificationNotFound)
        }
    }
}
