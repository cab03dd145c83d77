import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// A series whose last interval contains now: its flows are what happened up to now and its
/// snapshots the state now, never the state at the interval's end, which is still to come.
@Suite("Analytics: the interval under way")
struct IntervalUnderWayTests {
    static let t0 = SnapshotTests.t0
    static let day = SnapshotTests.day
    /// January 11, noon: January is under way, February has not begun.
    static let now = t0 + 10.5 * day
    static let january = DateInterval(start: t0, end: t0 + 31 * day)
    static let february = DateInterval(start: t0 + 31 * day, end: t0 + 59 * day)

    /// One period of chain `chain`, `days` long from `from` days after January 1 (negative: before).
    static func period(_ id: String, chain: String, from: Double, days: Double = 30, price: Int64 = 9_990, trial: Bool = false) -> PurchaseFact {
        var period = SnapshotTests.period(
            id, start: t0 + from * day, days: days, price: trial ? 0 : price, offer: trial ? .freeTrial : nil)
        period.originalTransactionId = chain
        return period
    }

    /// Six subscribers as of January 11, noon (every period $9.99 a month):
    /// - `renewing`: paid December 17, due to renew January 16 (later in January, after now);
    /// - `lapsed`: auto-renew turned off, expired January 6 (before now);
    /// - `renewed`: renewed January 11, 00:00;
    /// - `revoked`: paid December 22, the operator's revocation scheduled for January 21;
    /// - `fresh`: a new subscription bought January 3;
    /// - `trial`: a trial from January 4, converted January 11, 00:00.
    static func history() -> PurchaseHistory {
        var history = PurchaseHistory()
        history.add([
            period("renewing", chain: "renewing", from: -15),
            period("lapsed", chain: "lapsed", from: -25),
            period("renewed-1", chain: "renewed", from: -20), period("renewed-2", chain: "renewed", from: 10),
            period("revoked", chain: "revoked", from: -10),
            period("fresh", chain: "fresh", from: 2),
            period("trial-1", chain: "trial", from: 3, days: 7, trial: true), period("trial-2", chain: "trial", from: 10),
        ])
        history.add(RenewalFact(originalTransactionId: "lapsed", autoRenewProductId: "pro.monthly", willAutoRenew: false, signedDate: t0 - day))
        history.revoke(transactionId: "revoked", at: t0 + 20 * day)
        return history
    }

    static func values(_ metric: MetricName) -> [Decimal?] {
        SubscriptionAnalytics(catalog: SnapshotTests.catalog).series(metric, of: [history()], over: [january, february], now: now).map(\.value)
    }

    @Test("churn in the month under way is access that ended by now and is still ended now, not a renewal due later in the month")
    func churnUpToNow() {
        // By the definition, as of now: `lapsed` ended January 6 and has not come back; `renewing`
        // (due January 16) and `revoked` (revocation on January 21) still have access now.
        #expect(Self.values(.churnedSubscriptions) == [1, 0])
        // Active on January 1: renewing, lapsed, renewed, revoked.
        #expect(Self.values(.churnRate) == [Decimal(1) / 4, nil])
    }

    @Test("every flow of the month under way counts what happened up to now")
    func flowsUpToNow() {
        #expect(Self.values(.newSubscriptions) == [2, 0])  // fresh, and the trial's paid period
        #expect(Self.values(.newTrials) == [1, 0])
        #expect(Self.values(.trialConversions) == [1, 0])
        #expect(Self.values(.renewals) == [1, 0])  // renewed; renewing's renewal is still to come
        #expect(Self.values(.revenue) == [Decimal(string: "29.97"), 0])  // fresh, renewed-2, trial-2
        #expect(Self.values(.proceeds) == [Decimal(string: "20.98"), 0])  // 3 × 6.993 = 20.979
    }

    @Test("a snapshot of the month under way is the state now; a month not begun has none")
    func snapshotNow() {
        // Now: renewing, renewed, revoked, fresh and trial are paid and active; lapsed is gone.
        #expect(Self.values(.activeSubscriptions) == [5, nil])
        #expect(Self.values(.mrr) == [Decimal(string: "49.95"), nil])
        #expect(Self.values(.activeTrials) == [0, nil])
        // A finished month still reads its end: on January 31, renewing (no renewal known) and
        // revoked are gone too.
        let later = SubscriptionAnalytics(catalog: SnapshotTests.catalog)
            .series(.activeSubscriptions, of: [Self.history()], over: [Self.january], now: Self.t0 + 40 * Self.day)
        #expect(later.map(\.value) == [3])
    }
}
