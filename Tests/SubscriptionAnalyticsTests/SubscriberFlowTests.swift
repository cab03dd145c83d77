import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// Each flow definition pinned on small histories (see `SubscriberFlows`' table).
@Suite("Analytics: subscriber flows")
struct SubscriberFlowTests {
    static let t0 = SnapshotTests.t0
    static let day = SnapshotTests.day

    /// Periods of one chain back to back from `t0`: `kinds` says each period's offer (nil: paid).
    static func chain(_ id: String, _ kinds: [OfferKind?], days: Double = 30) -> [PurchaseFact] {
        var start = t0
        return kinds.enumerated().map { index, kind in
            let length = kind == .freeTrial ? 7 : days
            var period = SnapshotTests.period("\(id)-\(index)", start: start, days: length, price: kind == .freeTrial ? 0 : 9_990, offer: kind)
            period.originalTransactionId = id
            start += length * day
            return period
        }
    }

    static func flows(_ facts: [PurchaseFact], renewals: [RenewalFact] = [], from: Date, to: Date) -> SubscriberFlows {
        var history = PurchaseHistory()
        history.add(facts)
        history.add(renewals)
        return SubscriptionAnalytics(catalog: SnapshotTests.catalog).flows(of: history, from: from, to: to, now: to)
    }

    @Test("a trial that converts: a new trial, then a new subscription and a conversion when the paid period starts")
    func conversion() {
        let facts = Self.chain("c", [.freeTrial, nil])
        let first = Self.flows(facts, from: Self.t0, to: Self.t0 + 7 * Self.day)
        #expect(first.newTrials == 1 && first.newSubscriptions == 0 && first.trialConversions == 0)
        let second = Self.flows(facts, from: Self.t0 + 7 * Self.day, to: Self.t0 + 14 * Self.day)
        #expect(second.newTrials == 0 && second.newSubscriptions == 1 && second.trialConversions == 1)
    }

    @Test("a trial cancelled on its last day is a new trial and never churn (it was never paid)")
    func lapsedTrial() {
        let facts = Self.chain("t", [.freeTrial])
        let off = [
            RenewalFact(originalTransactionId: "t", autoRenewProductId: "pro.monthly", willAutoRenew: false, signedDate: Self.t0 + 6 * Self.day)
        ]
        let flows = Self.flows(facts, renewals: off, from: Self.t0, to: Self.t0 + 30 * Self.day)
        #expect(flows.newTrials == 1 && flows.newSubscriptions == 0 && flows.churnedSubscriptions == 0)
    }

    @Test("later paid periods are renewals; an upgrade starting inside a period is not")
    func renewals() {
        let facts = Self.chain("r", [nil, nil, nil])
        #expect(Self.flows(facts, from: Self.t0, to: Self.t0 + 90 * Self.day).renewals == 2)
        var upgrade = SnapshotTests.period("u-1", product: "pro.yearly", start: Self.t0 + 10 * Self.day, days: 365, price: 99_990)
        upgrade.originalTransactionId = "u"
        var monthly = Self.chain("u", [nil])[0]
        monthly.isUpgraded = true
        let flows = Self.flows([monthly, upgrade], from: Self.t0, to: Self.t0 + 60 * Self.day)
        #expect(flows.newSubscriptions == 1 && flows.renewals == 0)
    }

    @Test("access that ends is churn in the interval it ends, as a share of the subscriptions active at the start")
    func churn() {
        let facts = Self.chain("x", [nil]) + Self.chain("y", [nil, nil])
        let off = [RenewalFact(originalTransactionId: "x", autoRenewProductId: "pro.monthly", willAutoRenew: false, signedDate: Self.t0 + Self.day)]
        let january = Self.flows(facts, renewals: off, from: Self.t0 + Self.day, to: Self.t0 + 31 * Self.day)
        #expect(january.churnedSubscriptions == 1)
        #expect(january.churnRate == Decimal(1) / 2)
        let refunded = [SnapshotTests.period("z", revoked: Self.t0 + 5 * Self.day)]
        #expect(Self.flows(refunded, from: Self.t0 + Self.day, to: Self.t0 + 10 * Self.day).churnedSubscriptions == 1)
    }

    @Test("billing issues and recoveries: one recovered in grace (dated by the renewal date), one in retry, one Apple gave up on")
    func billingIssuesAndRecoveries() {
        let day = Self.day
        let t0 = Self.t0
        // g: fails at day 30, recovered in grace at day 35; the recovered period keeps the renewal date.
        var grace = Self.chain("g", [nil])
        var recovered = SnapshotTests.period("g-1", start: t0 + 30 * day, days: 30, price: 9_990)
        recovered.originalTransactionId = "g"
        grace.append(recovered)
        let graceFacts = [
            RenewalFact(originalTransactionId: "g", isInBillingRetry: true, gracePeriodExpiresDate: t0 + 46 * day, signedDate: t0 + 30 * day),
            RenewalFact(originalTransactionId: "g", willAutoRenew: true, isInBillingRetry: false, signedDate: t0 + 35 * day),
        ]
        // r: fails at day 30, recovered in retry at day 50 (a new period from then).
        var retry = Self.chain("r", [nil])
        var late = SnapshotTests.period("r-1", start: t0 + 50 * day, days: 30, price: 9_990)
        late.originalTransactionId = "r"
        retry.append(late)
        let retryFacts = [
            RenewalFact(originalTransactionId: "r", isInBillingRetry: true, gracePeriodExpiresDate: t0 + 46 * day, signedDate: t0 + 31 * day),
            RenewalFact(originalTransactionId: "r", willAutoRenew: true, isInBillingRetry: false, signedDate: t0 + 50 * day),
        ]
        // x: fails at day 30, Apple gives up at day 90; a win-back purchase at day 100 is no recovery.
        var lost = Self.chain("x", [nil])
        var winBack = SnapshotTests.period("x-1", start: t0 + 100 * day, days: 30, price: 4_990, offer: .winBack)
        winBack.originalTransactionId = "x"
        lost.append(winBack)
        let lostFacts = [
            RenewalFact(originalTransactionId: "x", isInBillingRetry: true, signedDate: t0 + 30 * day),
            RenewalFact(
                originalTransactionId: "x", willAutoRenew: false, expirationReason: .billingError, isInBillingRetry: false, signedDate: t0 + 90 * day),
            RenewalFact(originalTransactionId: "x", willAutoRenew: true, isInBillingRetry: false, signedDate: t0 + 100 * day),
        ]
        // p: renews normally at day 30: no issue.
        let paid = Self.chain("p", [nil, nil])
        let facts = grace + retry + lost + paid
        let renewals = graceFacts + retryFacts + lostFacts
        let month = Self.flows(facts, renewals: renewals, from: t0 + 30 * day, to: t0 + 60 * day)
        #expect(month.billingIssues == 3)
        #expect(month.billingRecoveries == 2)
        let later = Self.flows(facts, renewals: renewals, from: t0 + 60 * day, to: t0 + 120 * day)
        #expect(later.billingIssues == 0 && later.billingRecoveries == 0)
        let graceOnly = Self.flows(facts, renewals: renewals, from: t0 + 30 * day, to: t0 + 31 * day)
        #expect(graceOnly.billingRecoveries == 1)  // dated by the renewal date it kept
    }
}
