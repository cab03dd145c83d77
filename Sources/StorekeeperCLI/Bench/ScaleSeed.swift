import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import Foundation
import Logging
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine
import Synchronization

/// Fills a database with a large simulated population, one slice of customers at a time, so
/// memory stays bounded whatever the number of subscriptions.
///
/// Each slice of ``sliceSize`` customers is an independent run of the App Store simulator
/// (its seed derived from the run's seed and the slice number, its customers numbered and its
/// transaction ids drawn from the slice's own range, so slices never share an id), advanced
/// over ``days`` days ending at ``end``, written, and dropped. The rows are the bulk path of
/// `storekeeper bench analytics` (``AnalyticsBenchmark/changesets(store:appId:recordedAt:)``):
/// every transaction in its final form as a purchase fact, per chain the renewal facts of each
/// billing episode and its current renewal info, and a customer link naming the customer's
/// chains, written through ``SQLStore/apply(_:)-([Changeset])`` (multi-row inserts, one
/// transaction per 2,000 customers) with the source `import` and no raw signed data. Each
/// chain's figures (docs/read-side.md) go in the same transaction as its rows, computed from
/// them by ``ChainFigureUpdates`` as the intake computes them, and at the end the figures of
/// both environments are recorded as built with the settings of ``appConfiguration(apiKeys:)``,
/// so a server started on the database reads them at once (unless ``writesFigures`` is off:
/// then the server builds them at start, as on a database from before the read side). The
/// indexes only the figure reads use are dropped while the slices are written and built once,
/// sorted, after the last (``SQLStore/deferringFigureReadIndexes(_:)``), and the rollup cells
/// of the transactions are summed in memory and written once per million cells held
/// (``SQLStore/deferringRollups(_:)``). The
/// seed also saves an offerings document with a running experiment and enrols one customer in
/// ten (``offeringsChangeset(catalog:)``). A sample of the simulator's truth is kept in the
/// ``SeedManifest`` so the measuring step can check that the server computes the same states
/// from these rows. A seed saves its progress after every slice (``SeedProgress``) and one that
/// was stopped resumes from it (``resume``); until it finishes, its figures are recorded with
/// ``SQLStore/bulkLoadSettings(_:)``, so a server started on it builds them afresh.
struct ScaleSeed: Sendable {
    var subscriptions: Int
    var days: Double = 730
    var seed: UInt64 = 1
    var sliceSize = 10_000
    /// The instant the simulated history ends (and the rows' recording time).
    var end: Date
    var databaseURL: String?
    var directory: URL
    /// How many chains the manifest keeps for status reads, and for the truth check.
    var readSample = 20_000
    var checkSample = 2_000
    /// Whether each chain's figures are written with its rows.
    var writesFigures = true
    /// Whether the figure read indexes are built after the last slice rather than kept while writing.
    var defersIndexes = true
    /// Whether to go on with the stopped seed whose ``SeedProgress`` the directory holds (this
    /// seed's parameters must be the ones it saved).
    var resume = false
    /// How many rollup cells the seed holds back before writing them (about 200 bytes each).
    var heldRollupCells = 1_000_000
    /// For the tests of ``resume``: the process exits (status 75) after this many of its writes,
    /// as if killed, leaving what it held unwritten.
    var exitAfterWrites: Int?
    var progress: @Sendable (String) -> Void = { _ in }

    static let appId = "scale"
    static let bundleId = "com.example.storekeeper.scale"
    static let appAppleId: Int64 = 1
    /// Transaction ids of slice `k` follow `firstTransaction + k × sliceSize × idsPerCustomer`.
    static let firstTransaction: Int64 = 2_000_000_000_000_000
    static let idsPerCustomer: Int64 = 1_000
    /// The writes of the process so far (for ``exitAfterWrites``).
    private static let writes = Atomic<Int>(0)
    /// The writing connection's page cache while seeding (a server's is 16 MiB).
    static let writerCacheMebibytes = 1_024

    struct Report: Encodable {
        var database: String
        var subscriptions: Int
        var slices: Int
        var chains: Int
        var ledgerRows: Int
        var simulateSeconds: Double
        var writeSeconds: Double
        var totalSeconds: Double
        var rowsWrittenPerSecond: Double
        /// Time spent computing the chains' figures (their writing is part of ``writeSeconds``).
        var figureSeconds: Double
        /// Time spent building the figure read indexes after the last slice (part of ``totalSeconds``).
        var indexSeconds: Double
        /// Chain figure updates written (one per chain, one-time purchases' included, and
        /// environment) and their rows (runs, items and churn spans over every group).
        var figureUpdates: Int
        var figureRows: Int
        /// The settings digest the figures were recorded as built with (none when not written).
        var figureSettings: String?
        /// Chains whose figures the store did not write (it queued a job instead): 0 expected.
        var figureRetries: Int
        /// When the run resumed a stopped seed: how many slices that one had written (nil otherwise).
        var resumedAfterSlices: Int?
        var experiment: String
        var enrolments: Int
        /// The seeding process's peak resident memory (VmHWM), in MB.
        var peakRSSMegabytes: Double
        var manifest: String
    }

    /// The seeded app as the measuring steps serve it (the simulator's catalog and exchange
    /// rates, the default time zone): the seed's figures are built with its settings.
    static func appConfiguration(apiKeys: [APIKeyConfiguration]) -> AppConfiguration {
        var app = AppConfiguration(
            id: appId, bundleId: bundleId, appAppleId: appAppleId, environments: [.production], apiKeys: apiKeys,
            products: SimulatedProduct.demoCatalog.map(\.catalogProduct))
        app.analytics = AnalyticsConfiguration(exchangeRates: SimulatedStorefront.demoExchangeRates)
        return app
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The parameters a resumed seed must share with the one it resumes.
    var parameters: SeedProgress.Parameters {
        SeedProgress.Parameters(
            subscriptions: subscriptions, days: days, seed: seed, sliceSize: sliceSize, end: end, writesFigures: writesFigures,
            defersIndexes: defersIndexes)
    }

    /// The first chain id of slice `slice` (ids are decimal numbers of one length, so their
    /// order as text is their order as numbers).
    static func firstChain(ofSlice slice: Int, sliceSize: Int) -> String {
        String(firstTransaction + Int64(slice) * Int64(sliceSize) * idsPerCustomer)
    }

    /// The checkpoint recorded with the rollups written after slice `slice`.
    static func checkpoint(after slice: Int) -> BulkLoadCheckpoint { BulkLoadCheckpoint(appId: appId, marker: "slices:\(slice + 1)") }

    func run() async throws -> Report {
        let clock = ContinuousClock()
        let began = clock.now
        let start = end.addingTimeInterval(-days * 86_400)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let location = try DatabaseLocation.resolve(databaseURL: databaseURL, dataDirectory: directory.path)
        let progressURL = directory.appendingPathComponent(SeedProgress.fileName)
        var saved = SeedProgress(
            parameters: parameters, databaseURL: databaseURL, apiKey: "scale-\(UUID().uuidString.lowercased())", completedSlices: 0,
            summary: Summary(), elapsedSeconds: 0, resumptions: 0)
        if resume {
            saved = try SeedProgress.read(from: progressURL)
            guard saved.parameters == parameters else {
                throw Failure(description: "the stopped seed was asked for other parameters: \(saved.parameters)")
            }
            saved.resumptions += 1
        }
        let ca = try TestCertificateAuthority.generate(notBefore: start.addingTimeInterval(-86_400), notAfter: end.addingTimeInterval(86_400))
        let receipts = try ReceiptSigningAuthority.generate(validFrom: start.addingTimeInterval(-86_400), validUntil: end.addingTimeInterval(86_400))
        let signer = SimulatorSigner(certificateAuthority: ca, receiptAuthority: receipts)
        var logger = Logger(label: "storekeeper.bench")
        logger.logLevel = .error
        let slices = (subscriptions + sliceSize - 1) / sliceSize
        let configuration = self
        let apiKey = saved.apiKey
        let app = try AppRuntime(configuration: Self.appConfiguration(apiKeys: [APIKeyConfiguration(key: apiKey, role: .app)]))
        let settings = FigureBuild.settings(of: app.configuration)
        let (before, resumedAfterSlices) = (saved, resume ? saved.completedSlices : nil)
        let summary = try await SQLStore.withStore(location, logger: logger) { sql in
            var saved = before
            // Inserts into large indexes read most of their pages back with SQLite's default cache.
            try await sql.setWriterCache(mebibytes: Self.writerCacheMebibytes)
            if configuration.resume {
                try await configuration.checkResumable(sql, settings: settings)
            } else {
                try await configuration.begin(sql, settings: settings, app: app)
                try saved.write(to: progressURL)
            }
            let firstSlice = saved.completedSlices
            var summary = saved.summary
            func seedSlices() async throws {
                try await sql.deferringRollups {
                    if configuration.resume { try await configuration.holdRollupsAgain(sql, slices: slices) }
                    for slice in firstSlice..<slices {
                        try await configuration.seedSlice(slice, of: slices, signer: signer, app: app, into: sql, summary: &summary)
                        try await sql.flushDeferredRollups(over: configuration.heldRollupCells, checkpoint: Self.checkpoint(after: slice))
                        saved.completedSlices = slice + 1
                        saved.summary = summary
                        saved.elapsedSeconds = before.elapsedSeconds + (clock.now - began).seconds
                        try saved.write(to: progressURL)
                    }
                    // The last held changes, with a checkpoint after every slice (a seed stopped
                    // while it builds its indexes resumes with nothing to hold again).
                    try await sql.flushDeferredRollups(over: 0, checkpoint: Self.checkpoint(after: slices - 1))
                }
            }
            if configuration.writesFigures && configuration.defersIndexes {
                // The figure read indexes are built once, sorted, after the last slice.
                let indexBuild = try await sql.deferringFigureReadIndexes(seedSlices).indexBuild
                summary.indexSeconds += indexBuild.seconds
                configuration.progress("figure read indexes built in \(Int(indexBuild.seconds)) s")
            } else {
                try await seedSlices()
            }
            for environment in Self.figureEnvironments where configuration.writesFigures {
                try await sql.completeBulkLoad(appId: Self.appId, environment: environment, settings: settings)
            }
            summary.figureRetries = try await sql.pendingJobKeys(appId: Self.appId, kind: JobKind.transitions.rawValue).count
            // A resumed seed wrote again some rows of the run before it: count them in the ledger.
            if configuration.resume { summary.rows = try await sql.ledgerVersion(appId: Self.appId).count }
            return summary
        }
        let manifest = SeedManifest(
            appId: Self.appId, bundleId: Self.bundleId, apiKey: apiKey, databaseURL: databaseURL,
            subscriptions: subscriptions, seed: seed, days: days, end: end, chains: summary.chains, ledgerRows: summary.rows,
            reads: summary.reads, truths: summary.truths, customers: summary.customers, experimentId: Self.experimentId,
            enrolments: summary.enrolments, figureSettings: writesFigures ? settings : nil)
        let manifestURL = directory.appendingPathComponent(SeedManifest.fileName)
        try manifest.write(to: manifestURL)
        try? FileManager.default.removeItem(at: progressURL)
        let total = before.elapsedSeconds + (clock.now - began).seconds
        return Report(
            database: databaseURL == nil ? "sqlite" : "postgresql", subscriptions: subscriptions, slices: slices, chains: summary.chains,
            ledgerRows: summary.rows, simulateSeconds: summary.simulateSeconds, writeSeconds: summary.writeSeconds, totalSeconds: total,
            rowsWrittenPerSecond: (Double(summary.rows) / max(summary.writeSeconds, 1e-9)).rounded(),
            figureSeconds: summary.figures.seconds, indexSeconds: summary.indexSeconds, figureUpdates: summary.figures.updates,
            figureRows: summary.figures.rows,
            figureSettings: writesFigures ? settings : nil, figureRetries: summary.figureRetries, resumedAfterSlices: resumedAfterSlices,
            experiment: Self.experimentId, enrolments: summary.enrolments,
            peakRSSMegabytes: ProcessMemory.of(pid: nil)?.peakMegabytes ?? 0, manifest: manifestURL.path)
    }

    /// Starts a seed on an empty database: the app, its figures marked as being built by a bulk
    /// load (a server started before the end builds them again itself), and the offerings.
    private func begin(_ sql: SQLStore, settings: String, app: AppRuntime) async throws {
        guard try await sql.ledgerVersion(appId: Self.appId).count == 0 else {
            throw Failure(
                description: "the database already holds app \(Self.appId)'s ledger: seed a fresh data directory or database "
                    + "(or go on with a stopped seed: --resume)")
        }
        try await sql.saveApp(AppRecord(id: Self.appId, bundleId: Self.bundleId, createdAt: end))
        for environment in Self.figureEnvironments where writesFigures {
            try await sql.resetFigures(appId: Self.appId, environment: environment, settings: SQLStore.bulkLoadSettings(settings))
        }
        try await sql.apply(try offeringsChangeset(catalog: Set(app.catalog.products.map(\.productId))))
    }

    /// Checks that the database holds a seed stopped before its end, whose figures are being
    /// built with `settings`.
    private func checkResumable(_ sql: SQLStore, settings: String) async throws {
        for environment in Self.figureEnvironments where writesFigures {
            let state = try await sql.figureState(appId: Self.appId, environment: environment)
            guard state?.settings == SQLStore.bulkLoadSettings(settings), state?.complete == false else {
                throw Failure(description: "the database does not hold a stopped seed of app \(Self.appId) (its figures are not being loaded)")
            }
        }
    }

    /// Holds again the rollup changes of the documents written since the database's last
    /// checkpoint: they were held when the seed stopped, and lost.
    private func holdRollupsAgain(_ sql: SQLStore, slices: Int) async throws {
        guard writesFigures else { return }
        let marker = try await sql.figureState(appId: Self.appId, environment: Self.figureEnvironments[0])?.resumeAfter
        let written = marker.flatMap { Int($0.dropFirst("slices:".count)) } ?? 0
        var documents = 0
        for environment in Self.figureEnvironments {
            documents += try await sql.holdRollups(
                ofChainsFrom: Self.firstChain(ofSlice: written, sliceSize: sliceSize),
                to: Self.firstChain(ofSlice: slices, sliceSize: sliceSize), appId: Self.appId, environment: environment)
        }
        progress("resuming: the rollups of slices before \(written + 1) are written; \(documents) documents written since held again")
    }

    /// What the slices add up to.
    struct Summary: Codable, Sendable {
        var chains = 0
        var rows = 0
        var simulateSeconds = 0.0
        var writeSeconds = 0.0
        var reads: [String] = []
        var truths: [SeedManifest.Truth] = []
        /// A few customers of every slice, for customer pages.
        var customers: [String] = []
        var figures = FigureCost()
        var figureRetries = 0
        var enrolments = 0
        var indexSeconds = 0.0
    }

    /// What a slice's writes added, and the time the store took writing them.
    struct Written: Sendable {
        var rows = 0
        var seconds = 0.0
    }

    /// Simulates slice `slice`, writes its rows with its chains' figures and its enrolments, and
    /// keeps its share of the samples.
    func seedSlice(
        _ slice: Int, of slices: Int, signer: SimulatorSigner, app: AppRuntime, into sql: SQLStore, summary: inout Summary
    ) async throws {
        let clock = ContinuousClock()
        let simulating = clock.now
        let customers = min(sliceSize, subscriptions - slice * sliceSize)
        var behaviour = PopulationBehaviour()
        behaviour.subscribeRate = 1
        var dice = SeededRandom.derived(seed: seed, "slice-\(slice)")
        let store = SimulatedAppStore(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environment: .production)
        let firstId = Self.firstTransaction + Int64(slice) * Int64(sliceSize) * Self.idsPerCustomer
        let population = PopulationSimulator(
            configuration: PopulationConfiguration(
                customers: customers, start: end.addingTimeInterval(-days * 86_400), days: days, seed: dice.next(), behaviour: behaviour,
                storefronts: SimulatedStorefront.demoMix),
            store: store, signer: signer, firstCustomer: slice * sliceSize, transactionsAfter: firstId)
        population.signsData = false
        var instant = population.simulatedInstant
        while instant < end {
            instant = min(instant.addingTimeInterval(7 * 86_400), end)
            _ = try population.advance(to: instant)
        }
        guard population.lastTransactionNumber < firstId + Int64(sliceSize) * Self.idsPerCustomer else {
            throw Failure(description: "slice \(slice) used more than \(Self.idsPerCustomer) transaction ids per customer")
        }
        var changesets = AnalyticsBenchmark.changesets(store: store, appId: Self.appId, recordedAt: end)
        summary.enrolments += enrol(&changesets, in: experiment)
        summary.simulateSeconds += (clock.now - simulating).seconds

        // Figures are computed for a group of changesets at a time, and encoded, while the store
        // writes the group before (on its writing thread), each group written after the one
        // before it. At most three groups are held: one written, one encoded, one computed.
        let chains = SliceChains(changesets)
        var writing: Task<Written, any Error>?
        var beforeWriting: Task<Written, any Error>?
        for first in stride(from: 0, to: changesets.count, by: 4) {
            var group = Array(changesets[first..<min(first + 4, changesets.count)])
            for offset in group.indices where writesFigures {
                group[offset].figures = figures(
                    completedIn: first + offset, chains: chains, changesets: changesets, app: app, cost: &summary.figures)
            }
            _ = try await beforeWriting?.value
            beforeWriting = writing
            writing = Task { [before = writing, group] in
                // Encoded while the group before is written.
                let prepared = try SQLStore.prepare(group)
                var written = try await before?.value ?? Written()
                let began = ContinuousClock.now
                written.rows += try await sql.apply(prepared).reduce(0) { $0 + $1.newEntries }
                written.seconds += (ContinuousClock.now - began).seconds
                if let stop = exitAfterWrites, Self.writes.add(1, ordering: .relaxed).newValue >= stop { exit(75) }
                return written
            }
        }
        let written = try await writing?.value ?? Written()
        summary.rows += written.rows
        summary.writeSeconds += written.seconds
        let customerStride = max(1, changesets.count / 4)
        summary.customers += stride(from: 0, to: changesets.count, by: customerStride).compactMap { changesets[$0].links.first?.customerId }

        let truths = store.subscriptions().sorted { $0.originalTransactionId < $1.originalTransactionId }
        summary.chains += truths.count
        let readStride = max(1, truths.count * slices / max(1, readSample))
        summary.reads += stride(from: 0, to: truths.count, by: readStride).map { truths[$0].originalTransactionId }
        let checkStride = max(1, truths.count * slices / max(1, checkSample))
        summary.truths += stride(from: checkStride / 2, to: truths.count, by: checkStride).map { SeedManifest.Truth(truths[$0], at: end) }
        progress(
            "slice \(slice + 1)/\(slices): \(customers) customers, \(summary.rows) rows so far, "
                + "simulated \(Int(summary.simulateSeconds)) s, figures \(Int(summary.figures.seconds)) s, written \(Int(summary.writeSeconds)) s")
    }
}
