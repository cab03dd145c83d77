import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// The index answers every snapshot exactly as a replay of the facts at that instant does.
@Suite("Analytics: the snapshot index")
struct SnapshotIndexTests {
    static let t0 = SnapshotTests.t0
    static let day = SnapshotTests.day

    /// A small seeded generator (so a failure names its seed).
    struct Dice {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func chance(_ percent: Int) -> Bool { next(100) < percent }
    }

    /// Random chains: trials, paid periods with gaps, refunds, upgrades cutting a period short,
    /// failed renewals through grace and retry (with Apple's renewal facts, sometimes learned
    /// late), family-shared copies, three currencies (one without a rate), unpriced periods.
    static func histories(seed: UInt64, chains: Int) -> [PurchaseHistory] {
        var dice = Dice(state: seed)
        var result: [PurchaseHistory] = []
        for chain in 0..<chains {
            var history = PurchaseHistory()
            let id = "c\(chain)"
            var start = t0 + Double(dice.next(60)) * day
            let currency = ["USD", "EUR", "JPY"][dice.next(3)]
            let ownership: Ownership = dice.chance(10) ? .familyShared : .purchased
            let product = dice.chance(30) ? "pro.yearly" : "pro.monthly"
            for period in 0..<(1 + dice.next(8)) {
                let trial = period == 0 && dice.chance(30)
                let length = trial ? 7 : (product == "pro.yearly" ? 365 : 30)
                var fact = SnapshotTests.period(
                    "\(id)-\(period)", product: product, start: start, days: Double(length),
                    price: dice.chance(5) ? nil : (trial ? 0 : Int64(9_990 + 1_000 * dice.next(3))), currency: currency,
                    offer: trial ? .freeTrial : nil, ownership: ownership,
                    revoked: dice.chance(8) ? start + Double(1 + dice.next(length - 1)) * day : nil)
                fact.originalTransactionId = id
                history.add(fact)
                let end = start + Double(length) * day
                switch dice.next(6) {
                case 0:  // billing fails: grace and retry, recovered or not
                    let grace = end + 16 * day
                    history.add(
                        RenewalFact(
                            originalTransactionId: id, willAutoRenew: true, isInBillingRetry: true, gracePeriodExpiresDate: grace,
                            signedDate: end + Double(dice.next(20)) * day))
                    let recovery = Double(1 + dice.next(70))
                    if recovery < 60 {
                        history.add(
                            RenewalFact(originalTransactionId: id, willAutoRenew: true, isInBillingRetry: false, signedDate: end + recovery * day))
                        start = recovery < 16 ? end : end + recovery * day
                    } else {
                        history.add(
                            RenewalFact(
                                originalTransactionId: id, willAutoRenew: false, expirationReason: .billingError, isInBillingRetry: false,
                                signedDate: end + 60 * day))
                        start = end + Double(70 + dice.next(30)) * day
                    }
                case 1:  // a lapse and a return
                    history.add(RenewalFact(originalTransactionId: id, willAutoRenew: false, signedDate: start + day))
                    start = end + Double(dice.next(90)) * day
                case 2:  // an upgrade inside the period
                    start = start + Double(1 + dice.next(length - 1)) * day
                default:
                    start = end
                }
            }
            result.append(history)
        }
        return result
    }

    @Test("random histories: the index equals a replay at every day's end over a year", arguments: [UInt64(1), 2, 3, 4])
    func equalsReplay(seed: UInt64) throws {
        let histories = Self.histories(seed: seed, chains: 60)
        var all = PurchaseHistory()
        for history in histories { all = all.merging(history) }
        let analytics = SubscriptionAnalytics(
            catalog: SnapshotTests.catalog, configuration: AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.0825")!]),
            environment: "Production")
        let index = SnapshotIndex(analytics: analytics, histories: histories)
        let instants = (0..<400).map { Self.t0 + Double($0) * Self.day - 0.001 }
        let indexed = index.snapshots(at: instants)
        for (instant, snapshot) in zip(instants, indexed) {
            #expect(snapshot == analytics.snapshot(of: all, at: instant), "seed \(seed) at \(instant)")
        }
        // The histories reach every kind of state the index classifies.
        #expect(indexed.contains { $0.activeSubscriptions > 0 } && indexed.contains { $0.activeTrials > 0 })
        #expect(indexed.contains { $0.gracePeriod > 0 } && indexed.contains { $0.billingRetry > 0 })
        #expect(indexed.contains { $0.familyShared > 0 } && indexed.contains { !$0.unconverted.isEmpty })
        // A late fact about one chain changes only what it should.
        var updated = index
        var late = histories[0]
        if let first = late.purchases.values.first {
            late.revoke(transactionId: first.transactionId, at: first.purchaseDate + Self.day)
        }
        updated.replace(chain: "c0", with: late)
        var allUpdated = late
        for history in histories.dropFirst() { allUpdated = allUpdated.merging(history) }
        for (instant, snapshot) in zip(instants, updated.snapshots(at: instants)) {
            #expect(snapshot == analytics.snapshot(of: allUpdated, at: instant), "seed \(seed) after a late fact at \(instant)")
        }
    }

    @Test("runs computed apart on several threads make the same index as the histories added one by one")
    func runsComputedApart() async throws {
        let histories = Self.histories(seed: 9, chains: 450)
        let analytics = SubscriptionAnalytics(
            catalog: SnapshotTests.catalog, configuration: AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.0825")!]),
            environment: "Production")
        let serial = SnapshotIndex(analytics: analytics, histories: histories)
        var apart = SnapshotIndex(analytics: analytics, histories: [])
        let computed = await SnapshotIndex.runs(of: histories.enumerated().map { ("c\($0.offset)", $0.element) }, analytics: analytics)
        #expect(computed.map(\.chain) == (0..<450).map { "c\($0)" })
        for (chain, runs) in computed { apart.replace(chain: chain, with: runs) }
        #expect(apart.chainCount == serial.chainCount)
        let instants = (0..<400).map { Self.t0 + Double($0) * Self.day - 0.001 }
        #expect(apart.snapshots(at: instants) == serial.snapshots(at: instants))
        #expect(serial.snapshots(at: instants).contains { $0.activeSubscriptions > 100 })
    }

    @Test(
        "random histories: flow series in one pass equal each interval computed alone, churn equal the engine's state at each end or now",
        arguments: [UInt64(5), 6])
    func flowSeriesEqualIntervals(seed: UInt64) throws {
        let histories = Self.histories(seed: seed, chains: 60)
        var all = PurchaseHistory()
        for history in histories { all = all.merging(history) }
        let analytics = SubscriptionAnalytics(
            catalog: SnapshotTests.catalog, configuration: AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.0825")!]))
        let weeks = try ReportingInterval.week.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: .gmt)
        // Now is inside a week, in the afternoon: that week is read up to now, later ones are empty.
        let now = Self.t0 + 203.6 * Self.day
        let flows = analytics.flowSeries(of: all, over: weeks, now: now)
        var churned = 0
        for (interval, flow) in zip(weeks, flows) {
            let alone = analytics.flows(of: all, from: interval.start, to: interval.end, now: now)
            #expect(flow == alone, "seed \(seed) week of \(interval.start)")
            // Churn by its definition: the engine's state at the interval's end, or now for the
            // week under way, of the access that ended in the week by then.
            let instant = min(interval.end, now)
            let state = CustomerState(history: all, catalog: SnapshotTests.catalog, at: instant)
            let expected = state.subscriptions.filter { subscription in
                guard subscription.ownership == .purchased, subscription.offer?.kind != .freeTrial,
                    [.expired, .revoked, .billingRetry].contains(subscription.status),
                    let ended = subscription.accessEndsDate ?? subscription.expiresDate
                else { return false }
                return interval.start <= ended && ended < interval.end && ended <= instant
            }.count
            #expect(flow.churnedSubscriptions == expected, "seed \(seed) churn in the week of \(interval.start)")
            churned += expected
            let revenue = analytics.revenue(of: histories, from: interval.start, to: interval.end, now: now)
            let points = analytics.series(.revenue, of: histories, over: [interval], now: now)
            #expect(points.first?.value == revenue.revenue.value)
        }
        #expect(churned > 0 && flows.contains { $0.renewals > 0 } && flows.contains { $0.billingIssues > 0 })
        let underWay = try #require(weeks.firstIndex { $0.contains(now) })
        #expect(flows[(underWay + 1)...].allSatisfy { $0.churnedSubscriptions == 0 && $0.renewals == 0 && $0.newSubscriptions == 0 })
        let revenue = analytics.series(.proceeds, of: histories, over: weeks, now: now)
        for (interval, point) in zip(weeks, revenue) {
            #expect(point.value == analytics.revenue(of: histories, from: interval.start, to: interval.end, now: now).proceeds.value)
        }
    }
}
