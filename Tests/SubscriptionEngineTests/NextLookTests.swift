import Foundation
import SubscriptionEngine
import Testing

@Suite("Next look")
struct NextLookTests {
    private func state(
        _ status: SubscriptionStatus, ends: Double, willAutoRenew: Bool? = true, reason: ExpirationReason? = nil, grace: Double? = nil
    ) -> SubscriptionState {
        SubscriptionState(
            originalTransactionId: "t1", transactionId: "t1", productId: "p", subscriptionGroupIdentifier: "g", status: status,
            purchaseDate: ScenarioHistory.day(0), expiresDate: ScenarioHistory.day(ends), gracePeriodExpiresDate: grace.map(ScenarioHistory.day),
            originalPurchaseDate: nil, willAutoRenew: willAutoRenew, nextProductId: nil, expirationReason: reason, offer: nil,
            ownership: .purchased, revocation: nil, priceIncreaseConsent: nil, eligibleWinBackOfferIds: nil,
            accessEndsDate: ScenarioHistory.day(grace ?? ends)
        )
    }

    private let margin: TimeInterval = 600

    @Test("by default a period is looked at once, when the notification of its end is due")
    func periodEnd() {
        let renewing = NextLook(for: state(.active, ends: 30), at: ScenarioHistory.day(1))
        #expect(renewing == NextLook(date: ScenarioHistory.day(30).addingTimeInterval(margin), reason: .periodEnd))
        let cancelled = NextLook(for: state(.active, ends: 30, willAutoRenew: false), at: ScenarioHistory.day(1))
        #expect(cancelled == NextLook(date: ScenarioHistory.day(30).addingTimeInterval(margin), reason: .periodEnd))
        let yearly = NextLook(for: state(.active, ends: 365), at: ScenarioHistory.day(1))
        #expect(yearly == NextLook(date: ScenarioHistory.day(365).addingTimeInterval(margin), reason: .periodEnd))
    }

    @Test("shortly before expiry, when the policy asks for it")
    func beforeExpiry() {
        let policy = EngineConfiguration(nextLook: NextLookPolicy(beforeExpiry: 7_200, maximumInterval: 90 * 86_400))
        let look = NextLook(for: state(.active, ends: 30), at: ScenarioHistory.day(1), configuration: policy)
        #expect(look == NextLook(date: ScenarioHistory.day(30).addingTimeInterval(-7_200), reason: .beforeExpiry))
        let late = NextLook(for: state(.active, ends: 30), at: ScenarioHistory.day(30).addingTimeInterval(-60), configuration: policy)
        #expect(late == NextLook(date: ScenarioHistory.day(30).addingTimeInterval(margin), reason: .periodEnd))
    }

    @Test("a long period is checked at least every maximum interval, when the policy sets one")
    func periodic() {
        let policy = EngineConfiguration(nextLook: NextLookPolicy(maximumInterval: 7 * 86_400))
        let look = NextLook(for: state(.active, ends: 365), at: ScenarioHistory.day(1), configuration: policy)
        #expect(look == NextLook(date: ScenarioHistory.day(8), reason: .periodicCheck))
    }

    @Test("grace period and billing retry are looked at when they end; polled when the policy asks")
    func retrying() {
        let grace = NextLook(for: state(.gracePeriod, ends: 30, grace: 36), at: ScenarioHistory.day(30))
        #expect(grace == NextLook(date: ScenarioHistory.day(36).addingTimeInterval(margin), reason: .gracePeriod))
        let retry = NextLook(for: state(.billingRetry, ends: 30, reason: .billingError), at: ScenarioHistory.day(31))
        #expect(retry == NextLook(date: ScenarioHistory.day(90).addingTimeInterval(margin), reason: .billingRetry))
        let polling = EngineConfiguration(nextLook: NextLookPolicy(gracePeriodInterval: 6 * 3_600, billingRetryInterval: 86_400))
        let polledGrace = NextLook(for: state(.gracePeriod, ends: 30, grace: 30.1), at: ScenarioHistory.day(30), configuration: polling)
        #expect(polledGrace == NextLook(date: ScenarioHistory.day(30.1).addingTimeInterval(margin), reason: .gracePeriod))
        let polledRetry = NextLook(
            for: state(.billingRetry, ends: 30, reason: .billingError), at: ScenarioHistory.day(31), configuration: polling)
        #expect(polledRetry == NextLook(date: ScenarioHistory.day(32), reason: .billingRetry))
    }

    @Test("never for a voluntary expiry or a revocation")
    func never() {
        #expect(NextLook(for: state(.expired, ends: 30, willAutoRenew: false, reason: .voluntary), at: ScenarioHistory.day(31)).date == nil)
        #expect(NextLook(for: state(.revoked, ends: 30), at: ScenarioHistory.day(31)).date == nil)
    }

    @Test("an unconfirmed renewal is chased until Apple's retry window closes")
    func unconfirmed() {
        let soon = NextLook(for: state(.expired, ends: 30), at: ScenarioHistory.day(31))
        #expect(soon == NextLook(date: ScenarioHistory.day(31).addingTimeInterval(6 * 3_600), reason: .unconfirmedRenewal))
        #expect(NextLook(for: state(.expired, ends: 30), at: ScenarioHistory.day(91)).date == nil)
    }
}
