import AppStoreModels
import Foundation
import SubscriptionEngine
import SubscriptionReport
import Testing

@Suite("Facts, sources and policies")
struct FactTests {
    private let day = ScenarioHistory.day

    private func transaction(_ id: String, revoked: Double? = nil, signed: Double) -> JWSTransactionDecodedPayload {
        var payload = JWSTransactionDecodedPayload()
        payload.transactionId = id
        payload.originalTransactionId = "t1"
        payload.productId = "basic.monthly"
        payload.subscriptionGroupIdentifier = "g"
        payload.type = .autoRenewableSubscription
        payload.purchaseDate = day(0)
        payload.expiresDate = day(30)
        payload.revocationDate = revoked.map(day)
        payload.revocationType = revoked == nil ? nil : .refundFull
        payload.signedDate = day(signed)
        return payload
    }

    @Test("later signed data supersedes earlier: a refund, then its reversal")
    func refundReversal() {
        let refunded = PurchaseHistory(transactions: [transaction("t1", signed: 0), transaction("t1", revoked: 10, signed: 10)])
        #expect(CustomerState(history: refunded, at: day(15)).subscription("t1")?.status == .revoked)
        let reversed = PurchaseHistory(transactions: [
            transaction("t1", revoked: 10, signed: 10), transaction("t1", signed: 12), transaction("t1", signed: 0),
        ])
        #expect(CustomerState(history: reversed, at: day(15)).subscription("t1")?.status == .active)
    }

    @Test("an unsigned legacy fact never drops a signed refund")
    func unsignedDoesNotOverride() throws {
        let legacy = try StatusInput(json: ScenarioHistory(periods: [ScenarioHistory.sub("t1", "t1", "basic.monthly", 0, 30)]).verifyReceiptJSON)
            .history
        let merged = legacy.merging(PurchaseHistory(transactions: [transaction("t1", revoked: 10, signed: 10)]))
        #expect(CustomerState(history: merged, at: day(15)).subscription("t1")?.status == .revoked)
    }

    @Test("win-back offers: eligible when Apple lists them for a lapsed subscription, never in billing retry")
    func winBack() {
        let purchase = PurchaseFact(
            transactionId: "t1", productId: "basic.monthly", productType: .autoRenewable,
            subscriptionGroupIdentifier: "g", purchaseDate: day(0), expiresDate: day(30))
        let lapsed = PurchaseHistory(
            purchases: [purchase],
            renewals: [
                RenewalFact(
                    originalTransactionId: "t1", willAutoRenew: false, expirationReason: .voluntary, eligibleWinBackOfferIds: ["wb1", "wb2"])
            ])
        let eligibility = CustomerState(history: lapsed, at: day(40)).eligibility["g"]
        #expect(eligibility?.winBackOffer == true)
        #expect(eligibility?.eligibleWinBackOfferIds == ["wb1", "wb2"])
        let retrying = PurchaseHistory(
            purchases: [purchase],
            renewals: [
                RenewalFact(
                    originalTransactionId: "t1", isInBillingRetry: true, eligibleWinBackOfferIds: ["wb1"])
            ])
        #expect(CustomerState(history: retrying, at: day(40)).eligibility["g"]?.winBackOfferReason == .inBillingRetry)
        let unknown = PurchaseHistory(purchases: [purchase])
        #expect(CustomerState(history: unknown, at: day(40)).eligibility["g"]?.winBackOfferReason == .winBackEligibilityUnknown)
    }

    @Test("offerType 5 is a retention offer: decoded from Apple's JSON, kept in the fact and its period; a value Apple adds later stays unknown")
    func retentionOffer() throws {
        func fact(offerType: Int) throws -> PurchaseFact? {
            let json = """
                {"transactionId":"t5","originalTransactionId":"t5","productId":"pro.monthly","purchaseDate":0,"expiresDate":2592000000,\
                "type":"Auto-Renewable Subscription","offerType":\(offerType),"offerIdentifier":"stay_50","offerDiscountType":"PAY_AS_YOU_GO",\
                "price":4990,"currency":"USD"}
                """
            return PurchaseFact(transaction: try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8)))
        }
        let retention = try #require(try fact(offerType: 5))
        #expect(retention.offer == Offer(kind: .retention, identifier: "stay_50"))
        let state = CustomerState(history: PurchaseHistory(purchases: [retention]), at: day(1))
        #expect(state.subscription("t5")?.offer?.kind == .retention)
        #expect(try fact(offerType: 6)?.offer?.kind == .unknown)
        let decoded = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(#"{"offerType":5}"#.utf8))
        #expect(decoded.offerType == .retentionOffer)
    }

    @Test("manual grants give access; manual revocations take it, even when they arrive first")
    func manualFacts() {
        var history = PurchaseHistory()
        history.revoke(transactionId: "grant-2", at: day(5))
        history.add(PurchaseFact.manualGrant(id: "grant-1", productId: "pro.monthly", startDate: day(0), endDate: day(30)))
        history.add(PurchaseFact.manualGrant(id: "grant-2", productId: "lifetime", startDate: day(0), endDate: nil))
        let state = CustomerState(history: history, catalog: scenarioCatalog, at: day(10))
        #expect(state.entitlements.map(\.identifier) == ["basic", "pro"])
        #expect(CustomerState(history: history, catalog: scenarioCatalog, at: day(4)).isEntitled(to: "lifetime"))
    }

    @Test("the offline allowance keeps access while a renewal is unconfirmed, and only then")
    func offlineAllowance() {
        let purchase = PurchaseFact(
            transactionId: "t1", productId: "basic.monthly", productType: .autoRenewable,
            subscriptionGroupIdentifier: "g", purchaseDate: day(0), expiresDate: day(30))
        let config = EngineConfiguration(offlineAllowance: .tenDays)
        let unconfirmed = PurchaseHistory(purchases: [purchase], renewals: [RenewalFact(originalTransactionId: "t1", willAutoRenew: true)])
        let kept = CustomerState(history: unconfirmed, catalog: scenarioCatalog, at: day(35), configuration: config)
        #expect(kept.entitlements.first?.basis == .offlineAllowance)
        #expect(kept.entitlements.first?.expiresDate == day(40))
        #expect(CustomerState(history: unconfirmed, catalog: scenarioCatalog, at: day(41), configuration: config).entitlements.isEmpty)
        let cancelled = PurchaseHistory(purchases: [purchase], renewals: [RenewalFact(originalTransactionId: "t1", willAutoRenew: false)])
        #expect(CustomerState(history: cancelled, catalog: scenarioCatalog, at: day(35), configuration: config).entitlements.isEmpty)
    }

    @Test("a V2 notification adds its transaction and renewal info; without renewal info its type implies one")
    func notificationV2() {
        var notification = ResponseBodyV2DecodedPayload()
        notification.notificationType = .didFailToRenew
        notification.subtype = .gracePeriod
        var history = PurchaseHistory()
        history.add(notification: notification, transaction: transaction("t1", signed: 0), renewalInfo: nil)
        #expect(CustomerState(history: history, at: day(31)).subscription("t1")?.status == .billingRetry)
        var info = JWSRenewalInfoDecodedPayload()
        info.originalTransactionId = "t1"
        info.isInBillingRetryPeriod = true
        info.gracePeriodExpiresDate = day(46)
        info.signedDate = day(30)
        history.add(notification: notification, transaction: nil, renewalInfo: info)
        #expect(CustomerState(history: history, at: day(31)).subscription("t1")?.status == .gracePeriod)
    }

    @Test("a V1 notification's unified receipt gives the same facts as verifyReceipt")
    func notificationV1() throws {
        let scenario = ScenarioHistory(
            periods: [ScenarioHistory.sub("t1", "t1", "basic.monthly", 0, 30)],
            renewals: [.init(original: "t1", product: "basic.monthly", willRenew: false, intent: 1)]
        )
        let response = try JSONSerialization.jsonObject(with: scenario.verifyReceiptJSON) as? [String: Any] ?? [:]
        let body: [String: Any] = [
            "notification_type": "DID_CHANGE_RENEWAL_STATUS", "environment": "PROD",
            "unified_receipt": [
                "status": 0, "latest_receipt_info": response["latest_receipt_info"] ?? [],
                "pending_renewal_info": response["pending_renewal_info"] ?? [],
            ],
        ]
        let notification = try JSONDecoder().decode(NotificationV1.self, from: JSONSerialization.data(withJSONObject: body))
        var fromNotification = PurchaseHistory()
        fromNotification.add(notificationV1: notification)
        let fromReceipt = try StatusInput(json: scenario.verifyReceiptJSON).history
        #expect(fromNotification.purchases == fromReceipt.purchases)
        #expect(fromNotification.renewals == fromReceipt.renewals)
    }

    @Test("ISO 8601 durations", arguments: [("P1M", 31.0), ("P1Y", 366.0), ("P1W", 7.0), ("P3D", 3.0), ("PT12H", 0.5)])
    func durations(_ text: String, _ days: Double) throws {
        let duration = try #require(ISO8601Duration(text))
        #expect(duration.description == text)
        #expect(duration.added(to: day(0)) == day(days))
    }

    @Test("malformed durations are rejected", arguments: ["", "P", "1M", "PM", "P1H", "PT1D", "P1M1", "P9999999Y"])
    func badDurations(_ text: String) {
        #expect(ISO8601Duration(text) == nil)
    }

    @Test("a past instant is judged by what Apple said then: a grace period that later ran out, a retry Apple later gave up")
    func pastBillingEpisode() {
        let first = PurchaseFact(
            transactionId: "t1", originalTransactionId: "t1", productId: "basic.monthly", productType: .autoRenewable,
            subscriptionGroupIdentifier: "g", purchaseDate: day(0), expiresDate: day(30))
        // Apple failed to charge at day 30 (grace until 46), then gave up at day 90.
        let failed = RenewalFact(
            originalTransactionId: "t1", willAutoRenew: true, isInBillingRetry: true, gracePeriodExpiresDate: day(46), signedDate: day(31))
        let gaveUp = RenewalFact(
            originalTransactionId: "t1", willAutoRenew: false, expirationReason: .billingError, isInBillingRetry: false, signedDate: day(90))
        let history = PurchaseHistory(purchases: [first], renewals: [gaveUp, failed])
        #expect(history.renewals["t1"] == gaveUp)
        let status = { (instant: Double) in CustomerState(history: history, catalog: scenarioCatalog, at: day(instant)).subscription("t1")?.status }
        #expect(status(30.5) == .gracePeriod)  // before Apple's first word, the episode it described
        #expect(status(40) == .gracePeriod)
        #expect(status(50) == .billingRetry)
        #expect(status(89) == .billingRetry)
        #expect(status(91) == .expired)
        #expect(CustomerState(history: history, catalog: scenarioCatalog, at: day(40)).subscription("t1")?.accessEndsDate == day(46))

        // Recovered in retry at day 55: a new period, so the past before it stays as Apple said.
        let recovered = PurchaseFact(
            transactionId: "t2", originalTransactionId: "t1", productId: "basic.monthly", productType: .autoRenewable,
            subscriptionGroupIdentifier: "g", purchaseDate: day(55), expiresDate: day(85))
        let after = RenewalFact(originalTransactionId: "t1", willAutoRenew: true, isInBillingRetry: false, signedDate: day(55))
        let history2 = PurchaseHistory(purchases: [first, recovered], renewals: [failed, after])
        let status2 = { (instant: Double) in CustomerState(history: history2, catalog: scenarioCatalog, at: day(instant)).subscription("t1")?.status }
        #expect(status2(40) == .gracePeriod)
        #expect(status2(50) == .billingRetry)
        #expect(status2(60) == .active)

        // A voluntary lapse with nothing said about billing stays expired at every later instant.
        let cancelled = RenewalFact(originalTransactionId: "t1", willAutoRenew: false, expirationReason: .voluntary, signedDate: day(31))
        let history3 = PurchaseHistory(purchases: [first], renewals: [cancelled, after])
        #expect(CustomerState(history: history3, catalog: scenarioCatalog, at: day(40)).subscription("t1")?.status == .expired)
        #expect(CustomerState(history: history3, catalog: scenarioCatalog, at: day(40)).subscription("t1")?.expirationReason == .voluntary)
    }
}
