import Foundation
import SubscriptionEngine
import Testing

private func day(_ days: Double) -> Date { ScenarioHistory.day(days) }

@Suite("Transitions: customer events from the state over time")
struct TransitionTests {
    static func period(_ id: String, _ from: Double, _ to: Double, product: String = "basic.monthly", trial: Bool = false) -> PurchaseFact {
        PurchaseFact(
            transactionId: id, originalTransactionId: "t1", productId: product, productType: .autoRenewable, subscriptionGroupIdentifier: "g",
            purchaseDate: day(from), expiresDate: day(to), offer: trial ? Offer(kind: .freeTrial) : nil, signedDate: day(from))
    }

    /// A trial, its conversion, a renewal, auto-renew turned off and the lapse at the end.
    static func lifecycle(renewalSignedAt offset: Double) -> PurchaseHistory {
        let purchases = [period("t1", 0, 7, trial: true), period("t2", 7, 37), period("t3", 37, 67)]
        let on = RenewalFact(originalTransactionId: "t1", willAutoRenew: true, signedDate: day(0 + offset))
        let off = RenewalFact(originalTransactionId: "t1", willAutoRenew: false, expirationReason: .voluntary, signedDate: day(50 + offset))
        return PurchaseHistory(purchases: purchases, renewals: [on, off])
    }

    @Test("a trial's life gives trial.started, trial.converted + subscription.started, renewed, auto_renew_disabled, expired")
    func lifecycleEvents() {
        let transitions = Self.lifecycle(renewalSignedAt: 0).transitions(catalog: scenarioCatalog, until: day(100))
        #expect(
            transitions.map(\.type.rawValue) == [
                "trial.started", "subscription.started", "trial.converted", "subscription.renewed", "subscription.auto_renew_disabled",
                "subscription.expired",
            ])
        #expect(transitions.first?.occurredAt == day(0))
        #expect(transitions.last?.occurredAt == day(67) && transitions.last?.state?.expirationReason == .voluntary)
        // Only what happened by then.
        #expect(Self.lifecycle(renewalSignedAt: 0).transitions(catalog: scenarioCatalog, until: day(40)).count == 4)
    }

    @Test("the same facts learned at other times (reconciliation signs later) give the same transitions by id")
    func sameIdentityWhateverTheSource() {
        let byNotification = Self.lifecycle(renewalSignedAt: 0).transitions(catalog: scenarioCatalog, until: day(100))
        let byPolling = Self.lifecycle(renewalSignedAt: 0.4).transitions(catalog: scenarioCatalog, until: day(100))
        #expect(byNotification.map(\.id) == byPolling.map(\.id))
        // Repeated facts (each poll re-signs the same renewal info) add nothing.
        var repeated = Self.lifecycle(renewalSignedAt: 0.4)
        for hour in 1...5 {
            repeated.add(
                RenewalFact(originalTransactionId: "t1", willAutoRenew: false, expirationReason: .voluntary, signedDate: day(55 + Double(hour))))
        }
        #expect(repeated.transitions(catalog: scenarioCatalog, until: day(100)).map(\.id) == byPolling.map(\.id))
    }

    @Test("billing trouble: issue and grace, then recovery in a new period; a refund; a one-time purchase and a grant")
    func billingRefundOneTime() {
        let failed = RenewalFact(
            originalTransactionId: "t1", willAutoRenew: true, isInBillingRetry: true, gracePeriodExpiresDate: day(46), signedDate: day(30))
        let recovered = RenewalFact(originalTransactionId: "t1", willAutoRenew: true, isInBillingRetry: false, signedDate: day(50))
        var refunded = Self.period("t3", 50, 80)
        refunded.revocation = Revocation(date: day(60), kind: .refund)
        let lifetime = PurchaseFact(
            transactionId: "n1", originalTransactionId: "n1", productId: "lifetime", productType: .nonConsumable, purchaseDate: day(5))
        let grant = PurchaseFact(
            transactionId: "grant:g1", originalTransactionId: "grant:g1", productId: "lifetime", productType: .nonConsumable, purchaseDate: day(6))
        var history = PurchaseHistory(purchases: [Self.period("t2", 0, 30), refunded, lifetime, grant], renewals: [failed, recovered])
        history.revoke(transactionId: "grant:g1", at: day(8))
        let types = history.transitions(catalog: scenarioCatalog, until: day(100)).map(\.type.rawValue)
        #expect(
            types == [
                "subscription.started", "purchase.one_time", "entitlement.granted", "entitlement.revoked", "subscription.billing_issue",
                "subscription.grace_period_started", "subscription.billing_recovered", "subscription.renewed", "subscription.refunded",
            ], "\(types)")
    }

    @Test("a switch of auto-renew first seen in the renewal after it is the same switch when its own notification is learned later")
    func switchLearnedLate() {
        let purchases = [Self.period("t2", 0, 30), Self.period("t3", 30, 60)]
        let on = RenewalFact(originalTransactionId: "t1", willAutoRenew: true, signedDate: day(0))
        let off = RenewalFact(originalTransactionId: "t1", willAutoRenew: false, expirationReason: .voluntary, signedDate: day(15))
        let renewal = RenewalFact(originalTransactionId: "t1", willAutoRenew: true, signedDate: day(30))
        // The customer turned auto-renew back on just before the period ended; that notification was lost.
        let switchedOn = RenewalFact(originalTransactionId: "t1", willAutoRenew: true, signedDate: day(29.9))
        func switches(_ renewals: [RenewalFact]) -> [Transition] {
            PurchaseHistory(purchases: purchases, renewals: renewals).transitions(catalog: scenarioCatalog, until: day(100))
                .filter { [.autoRenewEnabled, .autoRenewDisabled].contains($0.type) }
        }
        let seenInRenewal = switches([on, off, renewal])
        let learnedLate = switches([on, off, renewal, switchedOn])
        #expect(seenInRenewal.map(\.type) == [.autoRenewDisabled, .autoRenewEnabled])
        #expect(seenInRenewal.last?.occurredAt == day(30) && learnedLate.last?.occurredAt == day(29.9))
        #expect(seenInRenewal.map(\.id) == learnedLate.map(\.id))
        // Recorded by an earlier version under the period it was seen in: not announced again.
        #expect(learnedLate.last?.formerIds == ["subscription.auto_renew_enabled:t1:t2:true:1"])
        // A resubscription after a lapse starts the count afresh; switches after it are new ones.
        let resubscribed = Self.period("t9", 90, 120)
        let again = [
            RenewalFact(originalTransactionId: "t1", willAutoRenew: false, expirationReason: .voluntary, signedDate: day(40)),
            RenewalFact(originalTransactionId: "t1", willAutoRenew: true, signedDate: day(90)),
            RenewalFact(originalTransactionId: "t1", willAutoRenew: false, expirationReason: .voluntary, signedDate: day(95)),
        ]
        let later = PurchaseHistory(purchases: purchases + [resubscribed], renewals: [on, off, renewal] + again)
            .transitions(catalog: scenarioCatalog, until: day(130)).filter { [.autoRenewEnabled, .autoRenewDisabled].contains($0.type) }
        #expect(later.map(\.type) == [.autoRenewDisabled, .autoRenewEnabled, .autoRenewDisabled, .autoRenewDisabled])
        #expect(Set(later.map(\.id)).count == 4)
    }
}
