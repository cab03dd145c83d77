import Foundation
import SQLKit
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

@testable import StorekeeperStore

/// Chain figures written with changesets, fact by fact in a random order, and read back as sums:
/// every backend gives the figures a replay of the same facts gives, in a time zone with summer
/// time; figures computed from fewer facts than the chain has by then are not written.
@Suite("Store: maintained figures")
struct FigureStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static let day: TimeInterval = 86_400
    static let zone = "America/New_York"
    static let analytics = SubscriptionAnalytics(
        catalog: Catalog(products: [
            CatalogProduct(productId: "pro.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "pro"),
            CatalogProduct(productId: "pro.yearly", type: .autoRenewable, subscriptionGroupIdentifier: "pro"),
        ]),
        configuration: AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.0825")!], timeZone: zone))

    /// Random chains of a few periods: trials, renewals, upgrades, lapses, refunds, billing
    /// trouble told by renewal facts, and three currencies (one without a rate).
    static func facts(seed: UInt64, chains: Int) -> [LedgerFact] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var facts: [LedgerFact] = []
        for chain in 0..<chains {
            let id = "20000000000\(1000 + chain)"
            var start = t0 + Double(next(90)) * day
            let currency = ["USD", "EUR", "JPY"][next(3)]
            let product = next(4) == 0 ? "pro.yearly" : "pro.monthly"
            for period in 0..<(1 + next(6)) {
                let trial = period == 0 && next(3) == 0
                let length = trial ? 7.0 : (product == "pro.yearly" ? 365 : 30)
                var fact = PurchaseFact(
                    transactionId: "\(id)\(period)", originalTransactionId: id, productId: product, productType: .autoRenewable,
                    subscriptionGroupIdentifier: "pro", purchaseDate: start, expiresDate: start + length * day,
                    offer: trial ? Offer(kind: .freeTrial) : nil,
                    price: Money(milliunits: trial ? 0 : Int64(9_990 + 1_000 * next(3)), currency: currency), signedDate: start)
                fact.storefront = ["USA", "FRA"][next(2)]
                if next(10) == 0 { fact.revocation = Revocation(date: start + Double(1 + next(5)) * day, kind: .refund) }
                facts.append(.purchase(fact))
                let end = start + length * day
                switch next(5) {
                case 0:
                    facts.append(.renewal(RenewalFact(originalTransactionId: id, willAutoRenew: true, isInBillingRetry: true, signedDate: end + day)))
                    facts.append(
                        .renewal(
                            RenewalFact(
                                originalTransactionId: id, willAutoRenew: false, expirationReason: .billingError,
                                isInBillingRetry: false, signedDate: end + 60 * day)))
                    start = end + Double(70 + next(30)) * day
                case 1:
                    facts.append(.renewal(RenewalFact(originalTransactionId: id, willAutoRenew: false, signedDate: start + day)))
                    start = end + Double(next(60)) * day
                default:
                    start = end
                }
            }
        }
        return facts
    }

    /// `facts` in a random order of `seed` (Fisher–Yates).
    static func shuffled(_ facts: [LedgerFact], seed: UInt64) -> [LedgerFact] {
        var facts = facts
        var state = seed
        for position in facts.indices.reversed() {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            facts.swapAt(position, Int((state >> 33) % UInt64(position + 1)))
        }
        return facts
    }

    /// Chains share customers (one in three has none: its chain stands for its customer).
    static func customer(of chain: String) -> String? {
        let number = Int(chain.suffix(2)) ?? 0
        return number % 3 == 0 ? nil : "customer-\(number % 7)"
    }

    static func owner(of chain: String) -> String { customer(of: chain).map { "customer:" + $0 } ?? "chain:" + chain }

    static func update(_ ledger: [LedgerEntry], chain: String, facts: Int, at: Date) -> FigureUpdate {
        FigureUpdate(
            environment: "Production", chain: chain, facts: facts, timeZone: zone,
            figures: analytics.figures(ofChain: PurchaseHistory(ledger: ledger)), customer: owner(of: chain),
            retry: JobRecord(appId: "app", kind: "transitions", runAt: at, idempotencyKey: "transitions:\(chain):\(at.millisecondsSince1970)"))
    }

    @Test("figures written fact by fact in a random order give the replay's figures", arguments: TestBackend.available)
    func writtenAndRead(backend: TestBackend) async throws {
        let shuffled = Self.shuffled(Self.facts(seed: 7, chains: 25), seed: 99)
        try await withTestStore(backend) { store in
            var ledgers: [String: [LedgerEntry]] = [:]
            for (step, fact) in shuffled.enumerated() {
                let at = Self.t0 + Double(step)
                let chain = fact.originalTransactionId ?? "-"
                let entry = LedgerEntry(appId: "app", fact: fact, customerId: Self.customer(of: chain), source: .notificationV2, recordedAt: at)
                ledgers[chain, default: []].append(entry)
                var changeset = Changeset(appId: "app", at: at, entries: [entry])
                changeset.figures = [Self.update(ledgers[chain]!, chain: chain, facts: ledgers[chain]!.count, at: at)]
                try await store.apply(changeset)
            }
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: Self.zone)!)
            let sums = try await store.figureSums(appId: "app", environment: "Production", calendar: calendar)
            let histories = ledgers.values.map(PurchaseHistory.init(ledger:))
            let now = Self.t0 + 250.4 * Self.day
            for interval in ReportingInterval.allCases {
                let intervals = try interval.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: calendar.timeZone)
                for metric in MetricName.allCases {
                    let replay = Self.analytics.series(metric, of: histories, over: intervals, now: now)
                    let stored = try await Self.analytics.series(metric, over: intervals, now: now, from: sums)
                    #expect(stored == replay, "\(backend): \(metric) by \(interval)")
                }
            }
            let months = try ReportingInterval.month.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: calendar.timeZone)
            for breakdown in Breakdown.allCases {
                for metric in [MetricName.mrr, .revenue, .churnedSubscriptions] {
                    let replay = Self.analytics.series(metric, of: histories, over: months, now: now, by: breakdown)
                    let stored = try await Self.analytics.series(metric, by: breakdown, over: months, now: now, from: sums)
                    #expect(stored == replay, "\(backend): \(metric) grouped by \(breakdown)")
                }
            }
            // The cohorts: customers (several chains each) by when they first paid.
            let customers = Dictionary(grouping: ledgers, by: { Self.owner(of: $0.key) }).values.map {
                PurchaseHistory(ledger: $0.flatMap(\.value))
            }
            for period in [ReportingInterval.week, .month] {
                for product in [nil, "pro.yearly"] {
                    let to = Self.t0 + (period == .week ? 120 : 240) * Self.day
                    let replay = try Self.analytics.cohorts(of: customers, from: Self.t0, to: to, period: period, product: product, now: now)
                    let stored = try await Self.analytics.cohorts(from: sums, from: Self.t0, to: to, period: period, product: product, now: now)
                    #expect(stored == replay, "\(backend): cohorts by \(period) of \(product ?? "every product")")
                    #expect(
                        replay.contains { $0.customers > 1 && $0.periods.contains { $0.active > 0 && $0.revenuePerCustomer > 0 } } || product != nil)
                }
            }
            // The figures reach every kind of figure.
            let active = try await Self.analytics.series(.activeSubscriptions, over: months, now: now, from: sums)
            #expect(active.contains { ($0.value ?? 0) > 5 })
        }
    }

    @Test(
        "many chains' figures in one changeset (a build, a seed) are written in bulk and give the replay's figures", arguments: TestBackend.available)
    func writtenInBulk(backend: TestBackend) async throws {
        let facts = Self.facts(seed: 9, chains: 40)
        try await withTestStore(backend) { store in
            let at = Self.t0 + 300 * Self.day
            var ledgers: [String: [LedgerEntry]] = [:]
            for fact in facts {
                let chain = fact.originalTransactionId ?? "-"
                ledgers[chain, default: []].append(
                    LedgerEntry(appId: "app", fact: fact, customerId: Self.customer(of: chain), source: .notificationV2, recordedAt: at))
            }
            let chains = ledgers.keys.sorted()
            func updates(_ part: ArraySlice<String>) -> [FigureUpdate] {
                part.map { Self.update(ledgers[$0]!, chain: $0, facts: ledgers[$0]!.count, at: at) }
            }
            // The ledger and the first chains' figures; then every chain's, the first ones again
            // among them (written one at a time), and customers with chains in both.
            var first = Changeset(appId: "app", at: at, entries: chains.flatMap { ledgers[$0]! })
            first.figures = updates(chains.prefix(12))
            try await store.apply(first)
            var all = Changeset(appId: "app", at: at)
            all.figures = updates(chains[...])
            try await store.apply(all)
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: Self.zone)!)
            let sums = try await store.figureSums(appId: "app", environment: "Production", calendar: calendar)
            let histories = ledgers.values.map(PurchaseHistory.init(ledger:))
            let now = Self.t0 + 250.4 * Self.day
            let weeks = try ReportingInterval.week.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: calendar.timeZone)
            for metric in MetricName.allCases {
                let replay = Self.analytics.series(metric, of: histories, over: weeks, now: now)
                #expect(try await Self.analytics.series(metric, over: weeks, now: now, from: sums) == replay, "\(backend): \(metric)")
            }
            let replay = Self.analytics.series(.revenue, of: histories, over: weeks, now: now, by: .storefront)
            #expect(
                try await Self.analytics.series(.revenue, by: .storefront, over: weeks, now: now, from: sums) == replay, "\(backend): by storefront")
            let customers = Dictionary(grouping: ledgers, by: { Self.owner(of: $0.key) }).values.map { PurchaseHistory(ledger: $0.flatMap(\.value)) }
            let to = Self.t0 + 240 * Self.day
            let cohorts = try Self.analytics.cohorts(of: customers, from: Self.t0, to: to, period: .month, now: now)
            #expect(try await Self.analytics.cohorts(from: sums, from: Self.t0, to: to, period: .month, now: now) == cohorts, "\(backend): cohorts")
            #expect(cohorts.contains { $0.customers > 1 })
        }
    }

    @Test(
        "changesets applied together (the inbox's batches), a chain in several of them, give the replay's figures; the dropped update's retry job is added",
        arguments: TestBackend.available)
    func writtenInBatches(backend: TestBackend) async throws {
        var facts = Self.facts(seed: 11, chains: 12)
        var state: UInt64 = 5
        for position in facts.indices.reversed() {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            facts.swapAt(position, Int((state >> 33) % UInt64(position + 1)))
        }
        let shuffled = facts
        try await withTestStore(backend) { store in
            var ledgers: [String: [LedgerEntry]] = [:]
            var dropped: [String] = []
            for (number, start) in stride(from: 0, to: shuffled.count, by: 7).enumerated() {
                let batch = shuffled[start..<min(start + 7, shuffled.count)]
                var changesets: [Changeset] = []
                var inBatch: [String: String] = [:]
                for (position, fact) in batch.enumerated() {
                    let at = Self.t0 + Double(number * 10 + position)
                    let chain = fact.originalTransactionId ?? "-"
                    let entry = LedgerEntry(appId: "app", fact: fact, customerId: Self.customer(of: chain), source: .notificationV2, recordedAt: at)
                    ledgers[chain, default: []].append(entry)
                    var changeset = Changeset(appId: "app", at: at, entries: [entry])
                    let update = Self.update(ledgers[chain]!, chain: chain, facts: ledgers[chain]!.count, at: at)
                    changeset.figures = [update]
                    if let earlier = inBatch[chain] { dropped.append(earlier) }
                    inBatch[chain] = update.retry.idempotencyKey
                    changesets.append(changeset)
                }
                try await store.apply(changesets)
            }
            #expect(!dropped.isEmpty, "some batch has a chain twice")
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: Self.zone)!)
            let sums = try await store.figureSums(appId: "app", environment: "Production", calendar: calendar)
            let histories = ledgers.values.map(PurchaseHistory.init(ledger:))
            let now = Self.t0 + 250.4 * Self.day
            let weeks = try ReportingInterval.week.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: calendar.timeZone)
            for metric in MetricName.allCases {
                let replay = Self.analytics.series(metric, of: histories, over: weeks, now: now)
                #expect(try await Self.analytics.series(metric, over: weeks, now: now, from: sums) == replay, "\(backend): \(metric)")
            }
            let customers = Dictionary(grouping: ledgers, by: { Self.owner(of: $0.key) }).values.map { PurchaseHistory(ledger: $0.flatMap(\.value)) }
            let to = Self.t0 + 240 * Self.day
            let cohorts = try Self.analytics.cohorts(of: customers, from: Self.t0, to: to, period: .month, now: now)
            #expect(try await Self.analytics.cohorts(from: sums, from: Self.t0, to: to, period: .month, now: now) == cohorts, "\(backend): cohorts")
            // The SQL stores write a batch's figures at once (the memory store one changeset
            // after another, so nothing is dropped there).
            let pending = try await store.pendingJobKeys(appId: "app", kind: "transitions")
            #expect(backend == .memory || !pending.isEmpty)
            if backend != .memory { #expect(Set(dropped).isSubset(of: pending), "\(backend): a retry job for each dropped update") }
        }
    }

    @Test(
        "a document stored as JSON (before the text form) is read: the chain's next facts replace its rows exactly",
        arguments: TestBackend.available.filter { $0 != .memory })
    func documentsStoredAsJSON(backend: TestBackend) async throws {
        let facts = Self.facts(seed: 13, chains: 6)
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            var ledgers: [String: [LedgerEntry]] = [:]
            for fact in facts {
                let chain = fact.originalTransactionId ?? "-"
                ledgers[chain, default: []].append(
                    LedgerEntry(appId: "app", fact: fact, customerId: Self.customer(of: chain), source: .notificationV2, recordedAt: Self.t0))
            }
            let chains = ledgers.keys.sorted().filter { ledgers[$0]!.count > 1 }
            #expect(!chains.isEmpty)
            // Every chain without its last fact, written, then its documents turned into JSON.
            for chain in ledgers.keys.sorted() {
                let ledger = chains.contains(chain) ? Array(ledgers[chain]!.dropLast()) : ledgers[chain]!
                var changeset = Changeset(appId: "app", at: Self.t0, entries: ledger)
                changeset.figures = [Self.update(ledger, chain: chain, facts: ledger.count, at: Self.t0)]
                try await store.apply(changeset)
            }
            let converted = try await store.backend.write { db in
                let rows = try await db.raw("SELECT chain, rows FROM figure_chains WHERE rows <> '{}'").all()
                for row in rows {
                    let json = try StoreCoding.encode(try SQLStore.document(row))
                    try await db.raw("UPDATE figure_chains SET rows = \(bind: json) WHERE chain = \(bind: try row.string("chain"))").run()
                }
                return rows.count
            }
            #expect(converted >= chains.count)
            for chain in chains {
                var changeset = Changeset(appId: "app", at: Self.t0, entries: [ledgers[chain]!.last!])
                changeset.figures = [Self.update(ledgers[chain]!, chain: chain, facts: ledgers[chain]!.count, at: Self.t0)]
                try await store.apply(changeset)
            }
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: Self.zone)!)
            let sums = try await store.figureSums(appId: "app", environment: "Production", calendar: calendar)
            let histories = ledgers.values.map(PurchaseHistory.init(ledger:))
            let now = Self.t0 + 250.4 * Self.day
            let weeks = try ReportingInterval.week.intervals(from: Self.t0, to: Self.t0 + 400 * Self.day, timeZone: calendar.timeZone)
            for metric in MetricName.allCases {
                let replay = Self.analytics.series(metric, of: histories, over: weeks, now: now)
                #expect(try await Self.analytics.series(metric, over: weeks, now: now, from: sums) == replay, "\(backend): \(metric)")
            }
        }
    }

    @Test("figures computed from fewer facts than the chain has are not written: the chain's retry job is added", arguments: TestBackend.available)
    func staleFiguresWaitForTheJob(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let chain = "2000000000000042"
            let facts = [0.0, 30.0].enumerated().map { number, start in
                LedgerFact.purchase(
                    PurchaseFact(
                        transactionId: "\(chain)\(number)", originalTransactionId: chain, productId: "pro.monthly", productType: .autoRenewable,
                        subscriptionGroupIdentifier: "pro", purchaseDate: Self.t0 + start * Self.day, expiresDate: Self.t0 + (start + 30) * Self.day,
                        price: Money(milliunits: 9_990, currency: "USD"), signedDate: Self.t0 + start * Self.day))
            }
            let entries = facts.map { LedgerEntry(appId: "app", fact: $0, source: .notificationV2, recordedAt: Self.t0) }
            // Another intake recorded the first fact; this one computed from the second alone.
            try await store.apply(Changeset(appId: "app", at: Self.t0, entries: [entries[0]]))
            var late = Changeset(appId: "app", at: Self.t0, entries: [entries[1]])
            late.figures = [Self.update([entries[1]], chain: chain, facts: 1, at: Self.t0)]
            try await store.apply(late)
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: Self.zone)!)
            let sums = try await store.figureSums(appId: "app", environment: "Production", calendar: calendar)
            let year = try ReportingInterval.month.intervals(from: Self.t0, to: Self.t0 + 365 * Self.day, timeZone: calendar.timeZone)
            let revenue = try await Self.analytics.series(.revenue, over: year, now: Self.t0 + 400 * Self.day, from: sums)
            #expect(revenue.allSatisfy { $0.value == 0 })
            let job = try await store.latestJob(appId: "app", kind: "transitions", state: .pending)
            #expect(job?.idempotencyKey == "transitions:\(chain):\(Self.t0.millisecondsSince1970)")
            // Computed from both, they are written.
            var both = Changeset(appId: "app", at: Self.t0, entries: [])
            both.figures = [Self.update(Array(entries.prefix(2)), chain: chain, facts: 2, at: Self.t0)]
            try await store.apply(both)
            let now = Self.t0 + 400 * Self.day
            let written = try await Self.analytics.series(
                .revenue, over: year, now: now,
                from: try await store.figureSums(appId: "app", environment: "Production", calendar: calendar))
            let replay = Self.analytics.series(.revenue, of: [PurchaseHistory(ledger: Array(entries.prefix(2)))], over: year, now: now)
            #expect(written == replay && replay.contains { ($0.value ?? 0) > 0 })
        }
    }
}
