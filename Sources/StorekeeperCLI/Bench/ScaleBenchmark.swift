import AppStoreModels
import AppStoreServerAPI
import AppStoreSimulator
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import StorekeeperServer
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// The measuring step of `storekeeper bench scale`, against a database `storekeeper bench seed`
/// filled: counts the ledger with the database's own client (a baseline), runs `storekeeper
/// migrate` on it, starts `storekeeper serve` as a child process (its memory read from
/// `/proc/<pid>/status`), loads it with status reads of existing chains and with `GET /health`
/// (the same-run baseline) at the same concurrency, checks a sample of chains against the
/// simulator's truth, asks for a year of daily analytics twice (the first builds the server's
/// snapshot index), stops the server, and times the reconciliation planning job (`planLooks`,
/// leased and run through the scheduler in this process, with an App Store that answers nothing).
struct ScaleBenchmark: Sendable {
    var directory: URL
    var reads = 20_000
    var concurrency = 16
    var analytics = true
    /// How long the server may take to start and to answer one analytics request.
    var patienceSeconds: Double = 1_800

    struct Report: Encodable {
        var database: String
        var subscriptions: Int
        var chains: Int
        var ledgerRows: Int
        var loadAverageBefore: String
        var loadAverageAfter: String
        /// Baseline: `SELECT count(*) FROM ledger` with `sqlite3` or `psql`.
        var countLedgerSeconds: Double
        var countedLedgerRows: Int
        /// `storekeeper migrate` on the seeded database (a separate process, schema up to date).
        var migrateSeconds: Double
        /// From spawning `storekeeper serve` to its first `/health` 200 (it migrates at start too).
        var startSeconds: Double
        var rssIdleMegabytes: Double
        var statusReads: LatencySummary
        var rssUnderReadsMegabytes: Double
        var health: LatencySummary
        var checked: Int
        var matched: Int
        /// Sampled chains whose expiry or grace end fell between the seed's end and now.
        var skippedChanged: Int
        var mismatches: [String]
        var analyticsColdSeconds: Double?
        var analyticsWarmSeconds: Double?
        var analyticsPoints: Int?
        var rssAfterAnalyticsMegabytes: Double
        var peakRSSMegabytes: Double
        /// Whether no planning job had run on this database before (the first run plans every chain).
        var planFirstEver: Bool
        var planSeconds: Double
        /// An hour later: the seeded rows are still inside the window (an hour's overlap).
        var planHourLaterSeconds: Double
        /// Two hours later: only chains with rows recorded since the previous run, here none.
        var planTwoHoursLaterSeconds: Double
        var looksPending: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func run() async throws -> Report {
        let manifest = try SeedManifest.read(from: directory)
        let loadBefore = Self.loadAverage()
        let counted = try countLedger(manifest)
        let configuration = serverConfiguration(manifest)
        let configURL = directory.appendingPathComponent("scale-server.json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(configuration).write(to: configURL, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: configURL.path)
        let log = directory.appendingPathComponent("scale-server.log")
        let migrate = try ServerChild.run(["migrate", "--config", configURL.path], log: log)
        guard migrate.status == 0 else { throw Failure(description: "storekeeper migrate exited with \(migrate.status); see \(log.path)") }

        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)))
        let serving: Result<Serving, any Error>
        do {
            serving = .success(try await serve(manifest, config: configURL, log: log, client: client))
        } catch {
            serving = .failure(error)
        }
        try? await client.shutdown()
        let served = try serving.get()
        let plan = try await planLooks(manifest, configuration: configuration)
        return Report(
            database: manifest.databaseURL == nil ? "sqlite" : "postgresql", subscriptions: manifest.subscriptions, chains: manifest.chains,
            ledgerRows: manifest.ledgerRows, loadAverageBefore: loadBefore, loadAverageAfter: Self.loadAverage(),
            countLedgerSeconds: counted.seconds, countedLedgerRows: counted.rows, migrateSeconds: migrate.seconds,
            startSeconds: served.startSeconds, rssIdleMegabytes: served.idle.residentMegabytes, statusReads: served.reads,
            rssUnderReadsMegabytes: served.underReads, health: served.health, checked: served.check.checked, matched: served.check.matched,
            skippedChanged: served.check.skipped, mismatches: Array(served.check.mismatches.prefix(20)),
            analyticsColdSeconds: served.analytics?.cold, analyticsWarmSeconds: served.analytics?.warm, analyticsPoints: served.analytics?.points,
            rssAfterAnalyticsMegabytes: served.after.residentMegabytes, peakRSSMegabytes: served.after.peakMegabytes,
            planFirstEver: plan.firstEver, planSeconds: plan.seconds[0], planHourLaterSeconds: plan.seconds[1],
            planTwoHoursLaterSeconds: plan.seconds[2], looksPending: plan.looksPending)
    }

    /// What the served part measured.
    struct Serving {
        var startSeconds: Double
        var idle: ProcessMemory
        var reads: LatencySummary
        var underReads: Double
        var health: LatencySummary
        var check: Check
        var analytics: (cold: Double, warm: Double, points: Int)?
        var after: ProcessMemory
    }

    struct Check {
        var checked = 0
        var matched = 0
        var skipped = 0
        var mismatches: [String] = []
    }

    private func serve(_ manifest: SeedManifest, config: URL, log: URL, client: HTTPClient) async throws -> Serving {
        let clock = ContinuousClock()
        let starting = clock.now
        var server = try ServerChild.start(config: config, log: log)
        for _ in 0..<3 {
            // A server that exits at once found its port taken: another port.
            try await Task.sleep(for: .milliseconds(300))
            if server.process.isRunning { break }
            server = try ServerChild.start(config: config, log: log)
        }
        do {
            try await server.waitUntilHealthy(client: client, seconds: patienceSeconds)
            let startSeconds = (clock.now - starting).seconds
            let idle = server.memory ?? ProcessMemory(residentKilobytes: 0, peakKilobytes: 0)
            let load = BenchLoad(client: client, base: server.base, key: manifest.apiKey, concurrency: concurrency)
            let chains = manifest.reads.shuffled()
            let appId = manifest.appId
            let count = reads
            let (readFigures, underReads) = await Self.sampling(server) {
                await load.timedGets(count: count, key: manifest.apiKey) { "/v1/apps/\(appId)/subscriptions/\(chains[$0 % chains.count])" }
            }
            let health = await load.timedGets(count: count, key: nil) { _ in "/health" }
            let check = try await check(manifest, load: load)
            var analyticsFigures: (cold: Double, warm: Double, points: Int)?
            if analytics {
                let to = Date(timeIntervalSince1970: (manifest.end.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
                let from = to.addingTimeInterval(-365 * 86_400)
                let path = "/v1/apps/\(appId)/metrics/mrr?from=\(Timestamp.string(from: from))&to=\(Timestamp.string(from: to))&interval=day"
                let coldStart = clock.now
                let cold = try await load.send(.GET, path, key: manifest.apiKey, timeout: .seconds(Int64(patienceSeconds)))
                let coldSeconds = (clock.now - coldStart).seconds
                let warmStart = clock.now
                let warm = try await load.send(.GET, path, key: manifest.apiKey, timeout: .seconds(Int64(patienceSeconds)))
                let warmSeconds = (clock.now - warmStart).seconds
                guard cold.status == 200, warm.status == 200, let points = warm.json["points"] as? [Any] else {
                    throw Failure(description: "the analytics answered \(cold.status)/\(warm.status): \(warm.text.prefix(300))")
                }
                analyticsFigures = (coldSeconds, warmSeconds, points.count)
            }
            let after = server.memory ?? idle
            await server.stop()
            return Serving(
                startSeconds: startSeconds, idle: idle, reads: readFigures, underReads: underReads, health: health, check: check,
                analytics: analyticsFigures, after: after)
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Runs `body` while reading the server's resident memory every 100 ms; returns the body's
    /// result and the highest reading, in MB.
    static func sampling<T: Sendable>(_ server: ServerChild, _ body: @escaping @Sendable () async -> T) async -> (T, Double) {
        let pid = server.process.processIdentifier
        return await withTaskGroup(of: (T?, Int).self) { group in
            group.addTask { (await body(), 0) }
            group.addTask {
                var highest = 0
                while !Task.isCancelled {
                    highest = max(highest, ProcessMemory.of(pid: pid)?.residentKilobytes ?? 0)
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return (nil, highest)
            }
            var result: T?
            var highest = 0
            while let (value, kilobytes) = await group.next() {
                if let value {
                    result = value
                    group.cancelAll()
                }
                highest = max(highest, kilobytes)
            }
            // The body's child always returns a value before the group ends.
            return (result!, (Double(highest) / 1024 * 10).rounded() / 10)
        }
    }

    /// Compares the server's status of each sampled chain with the simulator's truth.
    private func check(_ manifest: SeedManifest, load: BenchLoad) async throws -> Check {
        var check = Check()
        let now = Date()
        for truth in manifest.truths {
            guard truth.holds(from: manifest.end, until: now) else {
                check.skipped += 1
                continue
            }
            check.checked += 1
            let chain = truth.originalTransactionId
            let answer = try await load.send(.GET, "/v1/apps/\(manifest.appId)/subscriptions/\(chain)", key: manifest.apiKey)
            guard answer.status == 200, let view = try? JSONDecoder().decode(DemoComparison.ServerView.self, from: Data(answer.text.utf8)) else {
                check.mismatches.append("\(chain): the server answered \(answer.status)")
                continue
            }
            var differences: [String] = []
            if view.status != truth.status { differences.append("status \(view.status) ≠ \(truth.status)") }
            if view.productId != truth.productId { differences.append("product \(view.productId) ≠ \(truth.productId)") }
            if view.expiresDate.flatMap(DemoComparison.parse).map({ abs($0.timeIntervalSince(truth.expiresDate)) >= 0.001 }) ?? true {
                differences.append("expires \(view.expiresDate ?? "none") ≠ \(DemoComparison.format(truth.expiresDate))")
            }
            if (view.willAutoRenew ?? false) != truth.willAutoRenew { differences.append("auto-renew ≠ \(truth.willAutoRenew)") }
            if differences.isEmpty {
                check.matched += 1
            } else {
                check.mismatches.append("\(chain): " + differences.joined(separator: ", "))
            }
        }
        return check
    }

    /// The served configuration: the seeded app with the simulator's catalog and currencies.
    func serverConfiguration(_ manifest: SeedManifest) -> ServerConfiguration {
        var app = AppConfiguration(
            id: manifest.appId, bundleId: manifest.bundleId, appAppleId: ScaleSeed.appAppleId, environments: [.production],
            apiKeys: [APIKeyConfiguration(key: manifest.apiKey, role: .app)], products: SimulatedProduct.demoCatalog.map(\.catalogProduct))
        app.analytics = AnalyticsConfiguration(exchangeRates: SimulatedStorefront.demoExchangeRates)
        return ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, databaseURL: manifest.databaseURL, apps: [app], logLevel: "error")
    }

    /// Times `SELECT count(*) FROM ledger` with the database's command-line client.
    private func countLedger(_ manifest: SeedManifest) throws -> (seconds: Double, rows: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let query = "SELECT count(*) FROM ledger"
        if let url = manifest.databaseURL {
            process.arguments = ["psql", url, "-tAc", query]
        } else {
            process.arguments = ["sqlite3", directory.appendingPathComponent(DatabaseLocation.sqliteFileName).path, query]
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let began = clock.now
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = (clock.now - began).seconds
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let rows = Int(text) else {
            throw Failure(description: "counting the ledger with \(process.arguments?.first ?? "") failed: \(text)")
        }
        return (seconds, rows)
    }

    /// `/proc/loadavg`'s three averages.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}

extension ScaleBenchmark {
    /// What the planning runs measured.
    struct Planning {
        var firstEver: Bool
        /// The job at the seed's end, an hour later and two hours later.
        var seconds: [Double]
        var looksPending: Int
    }

    /// Runs the planning job through the scheduler at the seed's end, an hour later and two
    /// hours later (each considers the chains with rows recorded since an hour before the
    /// previous run, so the third no longer sees the seeded rows), timing the job alone: the
    /// refreshes that are due are leased with it but not run.
    func planLooks(_ manifest: SeedManifest, configuration: ServerConfiguration) async throws -> Planning {
        var configuration = configuration
        configuration.apps[0].appStoreServerAPI = AppStoreAPISettings(
            issuerId: "scale-bench", keyId: "SCALEBENCH", privateKey: P256.Signing.PrivateKey().pemRepresentation, environment: "Production")
        let apps = try AppDirectory(configuration: configuration)
        let clients = try AppleClients.live(configuration: configuration, transport: AbsentAppStore())
        var logger = Logger(label: "storekeeper.bench")
        logger.logLevel = .critical
        let location = try DatabaseLocation.resolve(databaseURL: manifest.databaseURL, dataDirectory: directory.path)
        let appId = manifest.appId
        let logs = logger
        return try await SQLStore.withStore(location, logger: logger) { sql in
            let kind = JobKind.planLooks.rawValue
            let firstEver = try await sql.latestJob(appId: appId, kind: kind, state: .done) == nil
            var seconds: [Double] = []
            for hour in 0..<3 {
                let at = manifest.end.addingTimeInterval(Double(hour) * 3_600)
                let scheduler = JobScheduler(
                    runner: JobRunner(apps: apps, store: sql, clients: clients, clock: { at }, logger: logs), owner: "scale-bench")
                let id = try await sql.enqueue(JobRecord(appId: appId, kind: kind, runAt: at, idempotencyKey: "\(kind):scale-bench:\(UUID())"))
                // Leases lapse at once: the refreshes leased alongside stay due for the server.
                let leased = try await sql.leaseJobs(limit: 1_000_000, owner: scheduler.owner, now: at, leaseUntil: at)
                guard let job = leased.first(where: { $0.id == id }) else { throw Failure(description: "the planning job was not leased") }
                let clock = ContinuousClock()
                let began = clock.now
                try await scheduler.execute(job)
                seconds.append((clock.now - began).seconds)
                guard try await sql.job(id: id)?.state == .done else { throw Failure(description: "the planning job did not succeed") }
            }
            let looks = try await sql.pendingJobKeys(appId: appId, kind: JobKind.refreshSubscription.rawValue).count
            return Planning(firstEver: firstEver, seconds: seconds, looksPending: looks)
        }
    }

    /// The App Store of the planning run: every request fails at once.
    struct AbsentAppStore: HTTPTransport {
        func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
            throw Failure(description: "the benchmark has no App Store to ask")
        }
    }
}
