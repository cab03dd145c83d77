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
        return SubscriptionAnalytics(catalog: SnapshotTests.catalog).flows(of: history, from: from, to: to)
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
}
