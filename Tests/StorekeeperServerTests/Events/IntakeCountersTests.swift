import Crypto
import Foundation
import StorekeeperStore
import SubscriptionEngine
import Testing

@testable import StorekeeperApps
@testable import StorekeeperInbox
@testable import StorekeeperServer

/// The door's counters of the last hour, and the cleaning of text stored beside an inbox row:
/// both run on every notification POST.
@Suite("The notification URL's counters and stored text")
struct IntakeCountersTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("the last hour is counted to the second, per app; older answers and other apps are not")
    func lastHour() {
        let counters = IntakeCounters()
        // Two hours at one answer a second, every tenth refused.
        for second in 0..<7200 {
            counters.record(appId: "alpha", refused: second % 10 == 0, at: Self.t0.addingTimeInterval(Double(second) + 0.5))
        }
        counters.record(appId: "beta", refused: true, at: Self.t0.addingTimeInterval(7000))
        let now = Self.t0.addingTimeInterval(7199.9)
        // The hour up to `now` is its second (7199) and the 3,599 before: 3,600 answers.
        let counts = counters.lastHour(appId: "alpha", now: now)
        #expect(counts.admitted + counts.refused == 3600)
        #expect(counts.refused == (3600...7199).filter { $0 % 10 == 0 }.count)
        #expect(counters.lastHour(appId: "beta", now: now) == (0, 1))
        #expect(counters.lastHour(appId: "gamma", now: now) == (0, 0))
        // An hour and more later nothing is left; an answer dated before the hour a slot now
        // counts is not counted into it.
        #expect(counters.lastHour(appId: "alpha", now: now.addingTimeInterval(3601)) == (0, 0))
        counters.record(appId: "alpha", refused: true, at: Self.t0.addingTimeInterval(10))
        #expect(counters.lastHour(appId: "alpha", now: now) == counts)
    }

    @Test("many answers in one second are all counted; dates far outside the calendar do not trap")
    func burst() {
        let counters = IntakeCounters()
        for index in 0..<50_000 { counters.record(appId: "alpha", refused: index % 2 == 0, at: Self.t0) }
        #expect(counters.lastHour(appId: "alpha", now: Self.t0) == (25_000, 25_000))
        counters.record(appId: "alpha", refused: false, at: .distantFuture)
        counters.record(appId: "alpha", refused: false, at: Date(timeIntervalSince1970: -1e300))
        counters.record(appId: "alpha", refused: false, at: Date(timeIntervalSince1970: .nan))
        _ = counters.lastHour(appId: "alpha", now: .distantPast)
    }

    @Test("stored text loses control characters and is cut to the limit in characters; clean ASCII is kept as it is")
    func cleanText() {
        #expect(InboxText.clean("2000000123456789", limit: 256) == "2000000123456789")
        #expect(InboxText.clean("a\u{0}b\u{7}c\u{7F}d\ne", limit: 256) == "abcde")
        #expect(InboxText.clean(String(repeating: "x", count: 300), limit: 256).count == 256)
        #expect(InboxText.clean("é" + String(repeating: "ü", count: 300), limit: 10) == "é" + String(repeating: "ü", count: 9))
        #expect(InboxText.clean("Storekeeper/1.0 (iOS; ünïcode)", limit: 256) == "Storekeeper/1.0 (iOS; ünïcode)")
        #expect(InboxText.field(nil) == nil)
    }

    @Test("an event's public id is the first half of SHA-256 of app and key, in lowercase hex")
    func publicId() {
        let digest = SHA256.hash(data: Data("alpha\u{1F}status:2000000123456789:1".utf8))
        let expected = "evt_" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
        #expect(CustomerEvents.publicId(appId: "alpha", key: "status:2000000123456789:1") == expected)
    }

    @Test("an auto-renew switch recorded under its former anchor (the period it was seen in) is not announced again")
    func formerAnchor() throws {
        let runtime = try AppRuntime(configuration: AppConfiguration(id: "alpha", bundleId: "com.example.alpha", appAppleId: 1))
        let day = { (days: Double) in Self.t0.addingTimeInterval(days * 86_400) }
        let periods = [("t1", 0.0, 30.0), ("t2", 30.0, 60.0)].map { id, from, to in
            PurchaseFact(
                transactionId: id, originalTransactionId: "t1", productId: "basic.monthly", productType: .autoRenewable,
                purchaseDate: day(from), expiresDate: day(to), signedDate: day(from))
        }
        let renewals = [(true, 0.0), (false, 10.0), (true, 20.0)].map { value, at in
            RenewalFact(originalTransactionId: "t1", willAutoRenew: value, signedDate: day(at))
        }
        let ledger = (periods.map(LedgerFact.purchase) + renewals.map(LedgerFact.renewal)).map {
            LedgerEntry(appId: "alpha", fact: $0, source: .notificationV2, recordedAt: day(40))
        }
        func switches(recorded: Set<String>) -> [String] {
            CustomerEvents.events(
                runtime: runtime, chain: "t1", ledger: ledger, customer: nil, recorded: RecordedEvents(keys: recorded), source: "test", now: day(40)
            )
            .events.filter { $0.type.rawValue.hasPrefix("subscription.auto_renew") }.map(\.idempotencyKey)
        }
        let fresh = switches(recorded: [])
        #expect(fresh.count == 2)
        // Recorded by a version that anchored switches to their period: both are known already.
        let former = ["subscription.auto_renew_disabled:t1:t1:false:1", "subscription.auto_renew_enabled:t1:t1:true:1"]
        #expect(switches(recorded: Set(former.map { "event:" + CustomerEvents.publicId(appId: "alpha", key: $0) })).isEmpty)
        #expect(switches(recorded: Set(fresh)).isEmpty)
    }
}
