import Crypto
import Foundation
import StorekeeperStore
import SubscriptionEngine
import Testing

@testable import StorekeeperApps
@testable import StorekeeperInbox

/// A period that ends while a renewal is still expected is called expired only once Apple said
/// so or had time to: Apple always tells how a renewal went, and a renewal notification that
/// comes late, or is lost and found by reconciliation, must not follow an `expired` the clock
/// guessed (a backend would have taken the access away).
@Suite("Customer events: an expiry waits for Apple")
struct ExpirySettleTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let end = t0.addingTimeInterval(30 * 86_400)
    static let hour: TimeInterval = 3_600

    static func runtime(reconciles: Bool) throws -> AppRuntime {
        var configuration = AppConfiguration(id: "alpha", bundleId: "com.example.alpha", appAppleId: 1)
        if reconciles {
            configuration.appStoreServerAPI = AppStoreAPISettings(
                issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "TESTKEY001", privateKey: P256.Signing.PrivateKey().pemRepresentation,
                environment: "Production")
        }
        return try AppRuntime(configuration: configuration)
    }

    static func period(_ id: String, from: Date, to: Date) -> LedgerFact {
        .purchase(
            PurchaseFact(
                transactionId: id, originalTransactionId: "p1", productId: "basic.monthly", productType: .autoRenewable, purchaseDate: from,
                expiresDate: to, signedDate: from))
    }

    /// The event types the chain's ledger gives at `now`, and when the clock looks again.
    static func events(_ facts: [LedgerFact], runtime: AppRuntime, at now: Date) -> (types: [String], next: Date?) {
        let ledger = facts.map { LedgerEntry(appId: "alpha", fact: $0, source: .notificationV2, recordedAt: now) }
        let found = CustomerEvents.events(runtime: runtime, chain: "p1", ledger: ledger, customer: nil, recorded: [], source: "test", now: now)
        return (found.events.map(\.type.rawValue).filter { $0.hasPrefix("subscription.") }, found.next?.runAt)
    }

    static let renewing: [LedgerFact] = [
        period("p1", from: t0, to: end), .renewal(RenewalFact(originalTransactionId: "p1", willAutoRenew: true, signedDate: t0)),
    ]

    @Test("without App Store Server API access, the clock calls it expired two hours after the end")
    func withoutReconciliation() throws {
        let runtime = try Self.runtime(reconciles: false)
        let early = Self.events(Self.renewing, runtime: runtime, at: Self.end + Self.hour)
        #expect(early.types == ["subscription.started"])
        #expect(early.next == Self.end + 2 * Self.hour)
        #expect(Self.events(Self.renewing, runtime: runtime, at: Self.end + 3 * Self.hour).types == ["subscription.started", "subscription.expired"])
    }

    @Test("an app that reconciles waits a day for its look to find what a lost notification said; the renewal found gives no expiry")
    func withReconciliation() throws {
        let runtime = try Self.runtime(reconciles: true)
        // Three hours after the end (the demo's step, a server down for a while): still waiting.
        let waiting = Self.events(Self.renewing, runtime: runtime, at: Self.end + 3 * Self.hour)
        #expect(waiting.types == ["subscription.started"])
        #expect(waiting.next == Self.end + 24 * Self.hour)
        // The look finds the renewal: renewed, never expired.
        let renewed = Self.renewing + [Self.period("p2", from: Self.end, to: Self.end + 30 * 86_400)]
        #expect(Self.events(renewed, runtime: runtime, at: Self.end + 5 * Self.hour).types == ["subscription.started", "subscription.renewed"])
        // Apple never says anything (its API down a whole day): the clock calls it.
        #expect(
            Self.events(Self.renewing, runtime: runtime, at: Self.end + 25 * Self.hour).types == ["subscription.started", "subscription.expired"])
    }

    @Test("what Apple signed after the end decides at once: expired, or retrying")
    func appleSaid() throws {
        let runtime = try Self.runtime(reconciles: true)
        let expired =
            Self.renewing + [
                .renewal(RenewalFact(originalTransactionId: "p1", willAutoRenew: true, isInBillingRetry: false, signedDate: Self.end + 600))
            ]
        #expect(Self.events(expired, runtime: runtime, at: Self.end + Self.hour).types == ["subscription.started", "subscription.expired"])
        let retrying =
            Self.renewing + [
                .renewal(RenewalFact(originalTransactionId: "p1", willAutoRenew: true, isInBillingRetry: true, signedDate: Self.end + 600))
            ]
        #expect(
            Self.events(retrying, runtime: runtime, at: Self.end + Self.hour).types == ["subscription.started", "subscription.billing_issue"])
        // A cancelled renewal was never expected: the end is the expiry.
        let cancelled = [
            Self.period("p1", from: Self.t0, to: Self.end),
            .renewal(RenewalFact(originalTransactionId: "p1", willAutoRenew: false, signedDate: Self.t0 + 86_400)),
        ]
        #expect(Self.events(cancelled, runtime: runtime, at: Self.end + 60).types == ["subscription.started", "subscription.expired"])
    }
}
