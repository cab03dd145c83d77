import AppStoreModels
import AppStoreSimulator
import AppStoreVerification
import Foundation
import Testing

@Suite("V1 notification bodies")
struct NotificationV1BuilderTests {
    typealias Scenario = NotificationV1Scenario

    @Test("an initial purchase gives an INITIAL_BUY body that our V1 decoder reads back whole")
    func initialBuyRoundTrips() throws {
        let scenario = try Scenario()
        let first = try scenario.transaction(Scenario.chain)
        let body = try scenario.body(.subscribed, .initialBuy, transaction: first, subscription: scenario.subscription(), day: 0)
        let decoded = try JSONDecoder().decode(NotificationV1.self, from: body)
        #expect(decoded.notificationType == .initialBuy)
        #expect(decoded.password == Scenario.sharedSecret)
        #expect(decoded.environment == .production)
        #expect(decoded.bid == Scenario.bundleId)
        #expect(decoded.bvrs == "1")
        #expect(decoded.originalTransactionId == Scenario.chain)
        #expect(decoded.autoRenewProductId == "pro.monthly")
        #expect(decoded.autoRenewStatus == true)
        #expect(decoded.unifiedReceipt?.status == .valid)
        #expect(decoded.unifiedReceipt?.environment == .production)
        #expect(decoded.unifiedReceipt?.latestReceiptInfo?.map(\.transactionId) == [Scenario.chain])
        #expect(decoded.unifiedReceipt?.pendingRenewalInfo?.map(\.originalTransactionId) == [Scenario.chain])
        let model = try scenario.builder.notification(
            type: .subscribed, subtype: .initialBuy, transaction: first, subscription: scenario.subscription(), store: scenario.store,
            at: Scenario.start)
        #expect(decoded == model)
    }

    @Test("latest_receipt verifies against the receipt root and holds exactly latest_receipt_info's purchases")
    func latestReceiptVerifies() throws {
        let scenario = try Scenario()
        let instant = Scenario.start.addingTimeInterval(60 * Scenario.day)
        let body = try scenario.body(
            .didRenew, transaction: scenario.transaction(Scenario.secondRenewal), subscription: scenario.subscription(), day: 60)
        let receipt = try #require(try JSONDecoder().decode(NotificationV1.self, from: body).unifiedReceipt)
        let listed = try #require(receipt.latestReceiptInfo).compactMap(\.transactionId)
        let signed = try scenario.receiptTransactionIds(try #require(receipt.latestReceipt), at: instant)
        #expect(Set(signed) == Set(listed))
        #expect(listed == [Scenario.secondRenewal, Scenario.firstRenewal, Scenario.coins, Scenario.chain])
    }

    @Test("a receipt signed with another authority's root does not verify")
    func latestReceiptNeedsItsRoot() throws {
        let scenario = try Scenario()
        let body = try scenario.body(.didRenew, transaction: nil, subscription: scenario.subscription(), day: 30)
        let latest = try #require(try JSONDecoder().decode(NotificationV1.self, from: body).unifiedReceipt?.latestReceipt)
        let otherRoot = scenario.signer.certificateAuthority.rootCertificateDER
        let verifier = try ReceiptVerifier(rootCertificates: [otherRoot])
        #expect(verifier.verify(base64Encoded: latest, now: Scenario.start).receipt == nil)
    }

    @Test("the account's purchases are listed newest first, only those made by the event")
    func latestReceiptInfoIsNewestFirstUpToTheEvent() throws {
        let scenario = try Scenario()
        let body = try scenario.body(
            .didRenew, transaction: scenario.transaction(Scenario.firstRenewal), subscription: scenario.subscription(), day: 30)
        let info = try #require(try JSONDecoder().decode(NotificationV1.self, from: body).unifiedReceipt?.latestReceiptInfo)
        #expect(info.map(\.transactionId) == [Scenario.firstRenewal, Scenario.coins, Scenario.chain])
        let renewal = try #require(info.first)
        #expect(renewal.productId == "pro.monthly")
        #expect(renewal.originalTransactionId == Scenario.chain)
        #expect(renewal.expiresDate == Scenario.start.addingTimeInterval(60 * Scenario.day))
        #expect(renewal.subscriptionGroupIdentifier == "G1")
    }

    @Test("the refund body carries the cancellation date on the refunded purchase only")
    func refundCarriesCancellationDate() throws {
        let scenario = try Scenario()
        let instant = Scenario.start.addingTimeInterval(20 * Scenario.day)
        var refunded = try scenario.transaction(Scenario.coins)
        refunded.revocationDate = instant
        refunded.revocationReason = .refundedForOtherReason
        let body = try scenario.body(.refund, transaction: refunded, subscription: nil, day: 20)
        let object = try Scenario.object(body)
        #expect(object["notification_type"] as? String == "REFUND")
        #expect(object["original_transaction_id"] as? String == Scenario.coins)
        #expect(object["auto_renew_status"] == nil)
        let unified = try #require(object["unified_receipt"] as? [String: Any])
        let entries = try #require(unified["latest_receipt_info"] as? [[String: Any]])
        let entry = try #require(entries.first { $0["transaction_id"] as? String == Scenario.coins })
        #expect(entry["cancellation_date_ms"] as? String == "1742515200000")
        #expect(entry["cancellation_date"] as? String == "2025-03-21 00:00:00 Etc/GMT")
        #expect(entry["cancellation_date_pst"] as? String == "2025-03-20 17:00:00 America/Los_Angeles")
        #expect(entry["cancellation_reason"] as? String == "0")
        #expect(entries.filter { $0["cancellation_date_ms"] != nil }.count == 1)
        let decoded = try JSONDecoder().decode(NotificationV1.self, from: body)
        #expect(decoded.unifiedReceipt?.latestReceiptInfo?.first { $0.transactionId == Scenario.coins }?.cancellationDate == instant)
    }

    @Test("an auto-renew change writes status and change date as Apple spells them")
    func renewalStatusChangeUsesAppleSpelling() throws {
        let scenario = try Scenario()
        var subscription = try scenario.subscription()
        subscription.autoRenewStatus = false
        let body = try scenario.body(
            .didChangeRenewalStatus, .autoRenewDisabled, transaction: scenario.transaction(Scenario.secondRenewal),
            subscription: subscription, day: 70)
        let object = try Scenario.object(body)
        #expect(object["notification_type"] as? String == "DID_CHANGE_RENEWAL_STATUS")
        #expect(object["environment"] as? String == "PROD")
        #expect(object["auto_renew_status"] as? String == "false")
        #expect(object["auto_renew_status_change_date_ms"] as? String == "1746835200000")
        #expect(object["auto_renew_status_change_date"] as? String == "2025-05-10 00:00:00 Etc/GMT")
        let unified = try #require(object["unified_receipt"] as? [String: Any])
        #expect(unified["status"] as? Int == 0)
        #expect(unified["environment"] as? String == "Production")
        let pending = try #require((unified["pending_renewal_info"] as? [[String: Any]])?.first)
        #expect(pending["auto_renew_status"] as? String == "0")
        let purchase = try #require((unified["latest_receipt_info"] as? [[String: Any]])?.first)
        #expect(purchase["quantity"] as? String == "1")
        #expect(purchase["is_trial_period"] as? String == "false")
        #expect(purchase["expires_date_ms"] as? String == "1748563200000")
    }

    @Test("a billing failure shows the retry, the grace period and the expiration intent")
    func billingFailureShowsRetry() throws {
        let scenario = try Scenario()
        var subscription = try scenario.subscription()
        subscription.isInBillingRetryPeriod = true
        subscription.expirationIntent = .billingError
        subscription.gracePeriodExpiresDate = Scenario.start.addingTimeInterval(106 * Scenario.day)
        let body = try scenario.body(
            .didFailToRenew, .gracePeriod, transaction: scenario.transaction(Scenario.secondRenewal), subscription: subscription, day: 90)
        let decoded = try JSONDecoder().decode(NotificationV1.self, from: body)
        #expect(decoded.notificationType == .didFailToRenew)
        #expect(decoded.expirationIntent == .billingError)
        let pending = try #require(decoded.unifiedReceipt?.pendingRenewalInfo?.first)
        #expect(pending.isInBillingRetryPeriod == true)
        #expect(pending.gracePeriodExpiresDate == subscription.gracePeriodExpiresDate)
        #expect(pending.expirationIntent == .billingError)
    }

    @Test("a price increase awaiting consent gives PRICE_INCREASE_CONSENT with price_consent_status 0")
    func priceIncreaseConsent() throws {
        let scenario = try Scenario()
        var subscription = try scenario.subscription()
        subscription.priceIncreaseStatus = .customerHasNotResponded
        let body = try scenario.body(.priceIncrease, .pending, transaction: nil, subscription: subscription, day: 65)
        let object = try Scenario.object(body)
        #expect(object["notification_type"] as? String == "PRICE_INCREASE_CONSENT")
        let unified = try #require(object["unified_receipt"] as? [String: Any])
        let pending = try #require((unified["pending_renewal_info"] as? [[String: Any]])?.first)
        #expect(pending["price_consent_status"] as? String == "0")
    }

    @Test("the password is the shared secret, and absent when the app has none")
    func passwordIsTheSharedSecret() throws {
        let scenario = try Scenario()
        let subscription = try scenario.subscription()
        let withSecret = try scenario.body(.didRenew, transaction: nil, subscription: subscription, day: 30)
        #expect(try Scenario.object(withSecret)["password"] as? String == Scenario.sharedSecret)
        let withoutSecret = try scenario.body(
            .didRenew, transaction: nil, subscription: subscription, day: 30,
            builder: NotificationV1Builder(signer: scenario.signer, sharedSecret: nil))
        #expect(try Scenario.object(withoutSecret)["password"] == nil)
    }

    @Test("a sandbox store writes Sandbox at top level and in the unified receipt")
    func sandboxEnvironment() throws {
        let scenario = try Scenario(environment: .sandbox)
        let body = try scenario.body(.didRenew, transaction: nil, subscription: scenario.subscription(), day: 30)
        let object = try Scenario.object(body)
        #expect(object["environment"] as? String == "Sandbox")
        #expect((object["unified_receipt"] as? [String: Any])?["environment"] as? String == "Sandbox")
        let decoded = try JSONDecoder().decode(NotificationV1.self, from: body)
        #expect(decoded.environment?.environment == .sandbox)
    }

    @Test(
        "events V1 never announced give no body",
        arguments: [
            (NotificationTypeV2.oneTimeCharge, Subtype?.none), (.gracePeriodExpired, nil), (.renewalExtended, nil), (.test, nil),
            (.expired, .voluntary), (.expired, .billingRetry), (.priceIncrease, .accepted), (.refundDeclined, nil),
            (.refundReversed, nil), (.renewalExtension, .summary),
        ])
    func eventsWithoutV1Equivalent(type: NotificationTypeV2, subtype: Subtype?) throws {
        let scenario = try Scenario()
        let body = try scenario.builder.body(
            type: type, subtype: subtype, transaction: scenario.transaction(Scenario.coins), subscription: scenario.subscription(),
            store: scenario.store, at: Scenario.start.addingTimeInterval(30 * Scenario.day))
        #expect(body == nil)
    }

    @Test("an event whose transaction belongs to no account the store knows gives no body")
    func unknownAccountGivesNoBody() throws {
        let scenario = try Scenario()
        let orphan = JWSTransactionDecodedPayload(transactionId: "888", productId: "coins.100", type: .consumable)
        #expect(
            try scenario.builder.body(
                type: .refund, subtype: nil, transaction: orphan, subscription: nil, store: scenario.store, at: Scenario.start) == nil)
    }

    @Test("the same event gives the same bytes")
    func bodiesAreDeterministic() throws {
        let scenario = try Scenario()
        let first = try scenario.body(.didRenew, transaction: nil, subscription: scenario.subscription(), day: 45)
        let second = try scenario.body(.didRenew, transaction: nil, subscription: scenario.subscription(), day: 45)
        #expect(first == second)
        #expect(!String(decoding: first, as: UTF8.self).contains(#"\/"#))
    }
}
