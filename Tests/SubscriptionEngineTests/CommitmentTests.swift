import AppStoreModels
import Foundation
import SubscriptionEngine
import Testing

/// Monthly plans with a 12-month commitment, from StoreKit 2 payloads as Apple writes them
/// (a one-year product billed `MONTHLY`; each month a transaction with its `commitmentInfo`;
/// the renewal info's `commitmentInfo` says what renews after the commitment).
@Suite("Monthly plans with a 12-month commitment")
struct CommitmentTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let day: TimeInterval = 86_400
    static let month: TimeInterval = 30 * day

    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// The `number`th monthly payment (1-based) of the commitment that began at ``start``.
    static func payment(_ number: Int, total: Int = 12, price: Int64 = 9_990) throws -> JWSTransactionDecodedPayload {
        let begins = start + Double(number - 1) * month
        let json = """
            {"transactionId":"c-\(number)","originalTransactionId":"c-1","productId":"pro.yearly","type":"Auto-Renewable Subscription",\
            "subscriptionGroupIdentifier":"pro","purchaseDate":\(ms(begins)),"originalPurchaseDate":\(ms(start)),\
            "expiresDate":\(ms(begins + month)),"quantity":1,"inAppOwnershipType":"PURCHASED","environment":"Production",\
            "transactionReason":"\(number == 1 ? "PURCHASE" : "RENEWAL")","storefront":"USA","currency":"USD","price":\(price),\
            "signedDate":\(ms(begins)),"billingPlanType":"MONTHLY",\
            "commitmentInfo":{"billingPeriodNumber":\(number),"totalBillingPeriods":\(total),"commitmentPrice":\(price * Int64(total)),\
            "commitmentExpiresDate":\(ms(start + Double(total) * month))}}
            """
        return try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
    }

    /// The renewal info signed at `signed`: auto-renew (what Apple keeps for the monthly
    /// payments), and what renews after the commitment.
    static func renewal(
        signed: Date, autoRenew: Bool = true, afterCommitment: Bool?, retry: Bool = false, grace: Date? = nil,
        renewsInto: String = "pro.yearly", plan: String = "MONTHLY"
    ) throws -> JWSRenewalInfoDecodedPayload {
        var object: [String: Any] = [
            "originalTransactionId": "c-1", "productId": "pro.yearly", "autoRenewProductId": "pro.yearly",
            "autoRenewStatus": autoRenew ? 1 : 0, "isInBillingRetryPeriod": retry, "environment": "Production", "signedDate": ms(signed),
            "renewalBillingPlanType": "MONTHLY", "currency": "USD", "renewalPrice": 9_990,
        ]
        if let afterCommitment {
            object["commitmentInfo"] = [
                "commitmentAutoRenewProductId": renewsInto, "commitmentAutoRenewStatus": afterCommitment ? 1 : 0,
                "commitmentRenewalBillingPlanType": plan, "commitmentRenewalDate": ms(start + 12 * month), "commitmentRenewalPrice": 9_990,
            ]
        }
        if let grace { object["gracePeriodExpiresDate"] = ms(grace) }
        return try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: JSONSerialization.data(withJSONObject: object))
    }

    static func state(_ payments: ClosedRange<Int>, renewals: [JWSRenewalInfoDecodedPayload], at instant: Date) throws -> SubscriptionState? {
        let history = PurchaseHistory(transactions: try payments.map { try payment($0) }, renewalInfos: renewals)
        return CustomerState(history: history, at: instant).subscription("c-1")
    }

    @Test("each monthly payment keeps its commitment: period number of total, commitment price and end; the state shows them")
    func decodesTheCommitment() throws {
        let fact = try #require(PurchaseFact(transaction: try Self.payment(3)))
        #expect(fact.billingPlanType == "MONTHLY")
        #expect(fact.commitment?.billingPeriodNumber == 3 && fact.commitment?.totalBillingPeriods == 12)
        #expect(fact.commitment?.price == Money(milliunits: 119_880, currency: "USD"))
        #expect(fact.commitment?.expiresDate == Self.start + 12 * Self.month)
        let state = try #require(
            try Self.state(1...3, renewals: [try Self.renewal(signed: Self.start, afterCommitment: true)], at: Self.start + 65 * Self.day))
        #expect(state.status == .active && state.billingPlanType == "MONTHLY" && state.isCommitted)
        #expect(state.expiresDate == Self.start + 3 * Self.month, "a month's payment expires at the month's end")
        #expect(state.commitmentRenewal?.willAutoRenew == true && state.commitmentRenewal?.billingPlanType == "MONTHLY")
    }

    @Test(
        "a cancellation during the commitment: the monthly payments go on (auto-renew stays on, no voluntary expiry at a month's end) until the last one, after which the subscription ends"
    )
    func cancellationDuringTheCommitment() throws {
        // The customer cancels in month 4: Apple's renewal info says the commitment will not renew.
        let cancelled = try Self.renewal(signed: Self.start + 100 * Self.day, autoRenew: false, afterCommitment: false)
        let month5 = try #require(try Self.state(1...5, renewals: [cancelled], at: Self.start + 125 * Self.day))
        #expect(month5.status == .active && month5.willAutoRenew == true && month5.isCommitted)
        #expect(month5.commitmentRenewal?.willAutoRenew == false)
        // Between the 5th month's end and the 6th payment's arrival, the chain is awaiting the
        // renewal it owes, not expired by choice.
        let gap = try #require(try Self.state(1...5, renewals: [cancelled], at: Self.start + 5 * Self.month + 60))
        #expect(gap.expirationReason != .voluntary && gap.willAutoRenew == true)
        // The 12th (last) payment: what renews after the commitment decides.
        let last = try #require(try Self.state(1...12, renewals: [cancelled], at: Self.start + 11 * Self.month + Self.day))
        #expect(last.status == .active && !last.isCommitted && last.willAutoRenew == false)
        let after = try #require(try Self.state(1...12, renewals: [cancelled], at: Self.start + 12 * Self.month + Self.day))
        #expect(after.status == .expired && after.expirationReason == .voluntary)
    }

    @Test("a commitment that renews: at the last payment auto-renew is on and names what it renews into")
    func renewsAfterTheCommitment() throws {
        let upfront = try Self.renewal(
            signed: Self.start + 300 * Self.day, afterCommitment: true, renewsInto: "pro.yearly", plan: "BILLED_UPFRONT")
        let last = try #require(try Self.state(1...12, renewals: [upfront], at: Self.start + 11 * Self.month + Self.day))
        #expect(last.willAutoRenew == true && last.commitmentRenewal?.billingPlanType == "BILLED_UPFRONT")
    }

    @Test("a failed monthly charge within the commitment: billing grace, then billing retry, with the commitment still owed")
    func failedChargeWithGrace() throws {
        let due = Self.start + 6 * Self.month
        let failing = try Self.renewal(signed: due + 60, afterCommitment: true, retry: true, grace: due + 16 * Self.day)
        let inGrace = try #require(try Self.state(1...6, renewals: [failing], at: due + 3 * Self.day))
        #expect(inGrace.status == .gracePeriod && inGrace.isCommitted)
        let retrying = try #require(try Self.state(1...6, renewals: [failing], at: due + 20 * Self.day))
        #expect(retrying.status == .billingRetry && retrying.expirationReason == .billingError)
    }

    @Test("a commitment that lapsed after Apple gave up charging, or was refunded, renews no more")
    func lapsedCommitment() throws {
        let due = Self.start + 6 * Self.month
        let retrying = try Self.renewal(signed: due + 60, afterCommitment: true, retry: true)
        var gaveUp = try Self.renewal(signed: due + 61 * Self.day, autoRenew: false, afterCommitment: true)
        gaveUp.expirationIntent = .billingError
        let lapsed = try #require(try Self.state(1...6, renewals: [retrying, gaveUp], at: due + 62 * Self.day))
        #expect(lapsed.status == .expired && lapsed.expirationReason == .billingError && lapsed.willAutoRenew == false)

        var refunded = try Self.payment(3)
        refunded.revocationDate = Self.start + 70 * Self.day
        refunded.revocationReason = .refundedForOtherReason
        // Apple's renewal info after the refund: auto-renew off. The commitment no longer forces it on.
        let history = PurchaseHistory(
            transactions: [try Self.payment(1), try Self.payment(2), refunded],
            renewalInfos: [try Self.renewal(signed: Self.start + 70 * Self.day, autoRenew: false, afterCommitment: false)])
        let revoked = try #require(CustomerState(history: history, at: Self.start + 75 * Self.day).subscription("c-1"))
        #expect(revoked.status == .revoked && revoked.willAutoRenew == false)
    }
}
