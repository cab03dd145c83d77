import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import Foundation
import Logging
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// Seeds a database with a simulated population's subscriptions, then times the analytics over
/// it: reading the ledger, building the snapshot index, a year of daily `mrr` and
/// `activeSubscriptions`, re-indexing one chain after a late fact, and (the same-run baseline)
/// replaying the ledger per day as the analytics did before the index. A few days are checked
/// both ways: any difference fails the run.
///
/// The seed is a documented bulk path: the simulator's truth (every transaction in its final
/// form, and per chain Apple's renewal facts of each billing episode and its current renewal
/// info) is written as ledger rows through the store's changesets, as `storekeeper import`
/// would, without signing and verifying each (which `bench server` measures).
struct AnalyticsBenchmark {
    var subscriptions: Int
    var days: Double
    var databaseURL: String?
    var seed: UInt64
    /// The instant the simulated years end (fixed, so a seed gives the same data on any day).
    static let end = Date(timeIntervalSince1970: 1_795_392_000)  // 2026-11-23T00:00:00Z
    static let appId = "analytics-bench"

    struct Report: Encodable {
        var database: String
        var subscriptions: Int
        var chains: Int
        var ledgerRows: Int
        var simulateSeconds: Double
        var seedSeconds: Double
        var rowsWrittenPerSecond: Double
        var readLedgerSeconds: Double
        var buildIndexSeconds: Double
        var yearOfDailyMRRSeconds: Double
        var yearOfDailyActiveSubscriptionsSeconds: Double
        var reindexOneChainSeconds: Double
        var yearOfDailyRevenueSeconds: Double
        var yearOfDailyChurnSeconds: Double
        var monthlyCohortsSeconds: Double
        var revenueOfTheYear: Decimal
        var replayOneDaySeconds: Double
        var replayYearEstimateSeconds: Double
        var activeSubscriptionsAtEnd: Int
        var mrrAtEnd: Decimal
        var checkedDays: Int
    }

    func run() async throws -> Report {
        let start = Self.end.addingTimeInterval(-days * 86_400)
        let clock = ContinuousClock()

        // The population: everyone subscribes; the simulator's truth, unsigned.
        let simulated = clock.now
        let ca = try TestCertificateAuthority.generate(notBefore: start.addingTimeInterval(-86_400), notAfter: Self.end.addingTimeInterval(86_400))
        let receipts = try ReceiptSigningAuthority.generate(
            validFrom: start.addingTimeInterval(-86_400), validUntil: Self.end.addingTimeInterval(86_400))
        let store = SimulatedAppStore(bundleId: "com.example.bench", appAppleId: 1, environment: .production)
        var behaviour = PopulationBehaviour()
        behaviour.subscribeRate = 1
        let population = PopulationSimulator(
            configuration: PopulationConfiguration(
                customers: subscriptions, start: start, days: days, seed: seed, behaviour: behaviour, storefronts: SimulatedStorefront.demoMix),
            store: store, signer: SimulatorSigner(certificateAuthority: ca, receiptAuthority: receipts))
        population.signsData = false
        var instant = start
        while instant < Self.end {
            instant = min(instant.addingTimeInterval(7 * 86_400), Self.end)
            _ = try population.advance(to: instant)
        }
        let simulateSeconds = (clock.now - simulated).seconds

        let location: DatabaseLocation
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-analytics-bench-\(UUID().uuidString.prefix(8))")
        if let databaseURL {
            location = try DatabaseLocation.resolve(databaseURL: databaseURL, dataDirectory: directory.path)
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            location = try DatabaseLocation.resolve(databaseURL: nil, dataDirectory: directory.path)
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "storekeeper.bench")
        logger.logLevel = .error
        let database: String =
            switch location {
            case .postgres: "postgresql"
            default: "sqlite"
            }
        let changesets = Self.changesets(store: store, recordedAt: Self.end)
        return try await SQLStore.withStore(location, logger: logger) { sql in
            let appId = Self.appId + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            try await sql.saveApp(AppRecord(id: appId, bundleId: "com.example.bench", createdAt: Self.end))
            let seeding = clock.now
            var rows = 0
            for changeset in changesets {
                var changeset = changeset
                changeset.appId = appId
                changeset.entries = changeset.entries.map {
                    var entry = $0
                    entry.appId = appId
                    return entry
                }
                rows += try await sql.apply(changeset).newEntries
            }
            let seedSeconds = (clock.now - seeding).seconds

            let reading = clock.now
            let ledger = try await sql.ledger(appId: appId)
            let readSeconds = (clock.now - reading).seconds

            let catalog = Catalog(products: SimulatedProduct.demoCatalog.map(\.catalogProduct))
            let analytics = SubscriptionAnalytics(
                catalog: catalog, configuration: AnalyticsConfiguration(exchangeRates: SimulatedStorefront.demoExchangeRates))
            let building = clock.now
            let byChain = Dictionary(grouping: ledger) { $0.fact.originalTransactionId ?? "-" }
            let histories = byChain.values.map(PurchaseHistory.init(ledger:))
            var index = SnapshotIndex(analytics: analytics, histories: histories)
            let buildSeconds = (clock.now - building).seconds

            let year = try ReportingInterval.day.intervals(from: Self.end.addingTimeInterval(-365 * 86_400), to: Self.end, timeZone: .gmt)
            let mrrTimer = clock.now
            let mrr = analytics.series(.mrr, of: [], over: year, now: Self.end, index: index)
            let mrrSeconds = (clock.now - mrrTimer).seconds
            let activeTimer = clock.now
            let active = analytics.series(.activeSubscriptions, of: [], over: year, now: Self.end, index: index)
            let activeSeconds = (clock.now - activeTimer).seconds

            // Flow metrics: one pass over the facts for the whole year.
            let revenueTimer = clock.now
            let revenue = analytics.series(.revenue, of: histories, over: year, now: Self.end)
            let revenueSeconds = (clock.now - revenueTimer).seconds
            let churnTimer = clock.now
            _ = analytics.series(.churnedSubscriptions, of: histories, over: year, now: Self.end)
            let churnSeconds = (clock.now - churnTimer).seconds
            let cohortTimer = clock.now
            let customers = Dictionary(grouping: ledger) { $0.customerId ?? "-" }.values.map(PurchaseHistory.init(ledger:))
            _ = try analytics.cohorts(of: customers, from: Self.end.addingTimeInterval(-days * 86_400), to: Self.end, period: .month, now: Self.end)
            let cohortSeconds = (clock.now - cohortTimer).seconds

            // The baseline: one day's snapshot replayed from every fact, as before the index.
            let all = PurchaseHistory(ledger: ledger)
            let checkDays = [0, 91, 182, 273, 364]
            var replaySeconds = 0.0
            for day in checkDays {
                let at = year[day].end.addingTimeInterval(-0.001)
                let replaying = clock.now
                let replayed = analytics.snapshot(of: all, at: at)
                replaySeconds += (clock.now - replaying).seconds
                let indexed = index.snapshots(at: [at])[0]
                guard replayed == indexed else {
                    throw CLIFailure(exitCode: 1, message: "the index and the replay differ at \(at): \(indexed) ≠ \(replayed)")
                }
            }
            let replayOneDay = replaySeconds / Double(checkDays.count)

            // A late fact: the busiest chain re-read from the store and re-indexed.
            let chain = byChain.max { $0.value.count < $1.value.count }?.key ?? "-"
            let reindexing = clock.now
            index.replace(chain: chain, with: PurchaseHistory(ledger: try await sql.ledger(appId: appId, originalTransactionId: chain)))
            let reindexSeconds = (clock.now - reindexing).seconds

            return Report(
                database: database, subscriptions: subscriptions, chains: index.chainCount, ledgerRows: rows, simulateSeconds: simulateSeconds,
                seedSeconds: seedSeconds, rowsWrittenPerSecond: Double(rows) / max(seedSeconds, 1e-9), readLedgerSeconds: readSeconds,
                buildIndexSeconds: buildSeconds, yearOfDailyMRRSeconds: mrrSeconds, yearOfDailyActiveSubscriptionsSeconds: activeSeconds,
                reindexOneChainSeconds: reindexSeconds, yearOfDailyRevenueSeconds: revenueSeconds, yearOfDailyChurnSeconds: churnSeconds,
                monthlyCohortsSeconds: cohortSeconds, revenueOfTheYear: revenue.reduce(Decimal(0)) { $0 + ($1.value ?? 0) },
                replayOneDaySeconds: replayOneDay, replayYearEstimateSeconds: replayOneDay * 365,
                activeSubscriptionsAtEnd: NSDecimalNumber(decimal: active.last?.value ?? 0).intValue, mrrAtEnd: mrr.last?.value ?? 0,
                checkedDays: checkDays.count)
        }
    }

    /// The simulator's truth as ledger changesets of about 500 customers each, for `appId`.
    static func changesets(store: SimulatedAppStore, appId: String = appId, recordedAt: Date) -> [Changeset] {
        var byCustomer: [String: [LedgerEntry]] = [:]
        var chains: [String: Set<String>] = [:]
        for (customerId, transaction) in store.allTransactions() {
            guard let fact = PurchaseFact(transaction: transaction) else { continue }
            byCustomer[customerId, default: []].append(
                LedgerEntry(appId: appId, fact: .purchase(fact), customerId: customerId, source: .import, recordedAt: recordedAt))
            chains[customerId, default: []].insert(fact.originalTransactionId)
        }
        for truth in store.subscriptions() {
            var facts: [RenewalFact] = []
            for episode in store.billingEpisodes(truth.originalTransactionId) {
                facts.append(
                    RenewalFact(
                        originalTransactionId: truth.originalTransactionId, willAutoRenew: true, expirationReason: .billingError,
                        isInBillingRetry: true, gracePeriodExpiresDate: episode.graceEnd, signedDate: episode.due))
                if let ended = episode.ended, episode.recovered == false {
                    facts.append(
                        RenewalFact(
                            originalTransactionId: truth.originalTransactionId, willAutoRenew: false, expirationReason: .billingError,
                            isInBillingRetry: false, signedDate: ended))
                }
            }
            let info = truth.renewalInfo(environment: .production, appTransactionId: nil, signedDate: recordedAt)
            if let current = RenewalFact(renewalInfo: info) { facts.append(current) }
            for fact in facts {
                byCustomer[truth.customerId, default: []].append(
                    LedgerEntry(appId: appId, fact: .renewal(fact), customerId: truth.customerId, source: .import, recordedAt: recordedAt))
            }
        }
        var result: [Changeset] = []
        var current = Changeset(appId: appId, at: recordedAt)
        for (customerId, entries) in byCustomer.sorted(by: { $0.key < $1.key }) {
            current.links.append(
                CustomerLink(customerId: customerId, aliases: (chains[customerId] ?? []).sorted().map { .originalTransactionId($0) }))
            current.entries += entries
            if current.links.count >= 500 {
                result.append(current)
                current = Changeset(appId: appId, at: recordedAt)
            }
        }
        if !current.entries.isEmpty { result.append(current) }
        return result
    }
}
