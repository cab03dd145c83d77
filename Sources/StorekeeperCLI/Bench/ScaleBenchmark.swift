import AppStoreModels
import AppStoreServerAPI
import AppStoreSimulator
import AppStoreTestSigning
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import StorekeeperApps
import StorekeeperInbox
import StorekeeperJobs
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
    /// Whether to time a planning run over every chain first (as on a database no server has
    /// planned yet); otherwise a plan is recorded as done an hour after the seed's end.
    var firstPlan = false
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
        /// The planning run over every chain (`--first-plan` on a database never planned), if timed.
        var planFirstEverSeconds: Double?
        /// The hourly planning run, once the chains given an hour's facts (``planHourChains``)
        /// are the only ones recorded since the previous run.
        var planHourlySeconds: Double
        /// How many chains were given a fact in that hour: one in 730 (a monthly renewal an hour).
        var planHourChains: Int
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
        try PrivateFiles.write(try encoder.encode(configuration), to: configURL)
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
            planFirstEverSeconds: plan.firstEverSeconds, planHourlySeconds: plan.hourlySeconds, planHourChains: plan.hourChains,
            looksPending: plan.looksPending)
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
        let server = try await ServerChild.startOnFreePort(config: config, log: log)
        do {
            try await server.waitUntilHealthy(client: client, seconds: patienceSeconds)
            let startSeconds = (clock.now - starting).seconds
            let idle = server.memory ?? ProcessMemory(residentKilobytes: 0, peakKilobytes: 0)
            let load = try await BenchLoad.connect(port: server.port, key: manifest.apiKey, concurrency: concurrency)
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
            await load.close()
            await server.stop()
            return Serving(
                startSeconds: startSeconds, idle: idle, reads: readFigures, underReads: underReads, health: health, check: check,
                analytics: analyticsFigures, after: after)
        } catch {
            // Stopping the server closes any connections the load opened.
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

    /// The served configuration: the seeded app with the simulator's catalog and currencies
    /// (``ScaleSeed/appConfiguration(apiKeys:)``, whose settings the seed's figures were built
    /// with), the manifest's app key and any `extraKeys`.
    static func serverConfiguration(
        _ manifest: SeedManifest, directory: URL, extraKeys: [APIKeyConfiguration] = [], logLevel: String = "error"
    ) -> ServerConfiguration {
        let app = ScaleSeed.appConfiguration(apiKeys: [APIKeyConfiguration(key: manifest.apiKey, role: .app)] + extraKeys)
        return ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, databaseURL: manifest.databaseURL, apps: [app], logLevel: logLevel)
    }

    func serverConfiguration(_ manifest: SeedManifest) -> ServerConfiguration {
        Self.serverConfiguration(manifest, directory: directory)
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
        var firstEverSeconds: Double?
        var hourlySeconds: Double
        var hourChains: Int
        var looksPending: Int
    }

    /// Times the hourly planning job as a server that has planned every hour since the import
    /// runs it: a plan is recorded as done two hours after the seed's end (or after the last plan
    /// of an earlier measurement), so that its window (an hour back) holds none of the seeded
    /// rows; with ``firstPlan`` on a database never planned, a run over every chain is timed
    /// there instead. One chain in 730 then gets a renewal fact during the next hour (Apple
    /// re-sending its latest renewal info: about the renewals of an hour of monthly
    /// subscriptions), and the job an hour after that plan is timed. Each run goes through the
    /// scheduler; the refreshes it leases are not run.
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
        let firstPlan = self.firstPlan
        return try await SQLStore.withStore(location, logger: logger) { sql in
            let kind = JobKind.planLooks.rawValue
            // After the seed's end, or after the last plan an earlier measurement recorded: the
            // plan marked done two hours later looks back one hour, past every row before.
            let latest = try await sql.latestJob(appId: appId, kind: kind, state: .done)
            let afterImport = max(manifest.end, latest?.runAt ?? manifest.end).addingTimeInterval(2 * 3_600)
            func timed(at: Date) async throws -> Double {
                let scheduler = JobScheduler(
                    runner: JobRunner(apps: apps, store: sql, clients: clients, clock: { at }, logger: logs), owner: "scale-bench")
                let id = try await sql.enqueue(JobRecord(appId: appId, kind: kind, runAt: at, idempotencyKey: "\(kind):scale-bench:\(UUID())"))
                // Leases lapse at once: the refreshes leased alongside stay due for the server.
                let leased = try await sql.leaseJobs(limit: 1_000_000, owner: scheduler.owner, now: at, leaseUntil: at)
                guard let job = leased.first(where: { $0.id == id }) else { throw Failure(description: "the planning job was not leased") }
                let clock = ContinuousClock()
                let began = clock.now
                try await scheduler.execute(job)
                guard try await sql.job(id: id)?.state == .done else { throw Failure(description: "the planning job did not succeed") }
                return (clock.now - began).seconds
            }
            var firstEver: Double?
            if firstPlan && latest == nil {
                firstEver = try await timed(at: afterImport)
            } else {
                let id = try await sql.enqueue(
                    JobRecord(appId: appId, kind: kind, runAt: afterImport, idempotencyKey: "\(kind):scale-bench:\(UUID())"))
                let leased = try await sql.leaseJobs(limit: 1_000_000, owner: "scale-bench", now: afterImport, leaseUntil: afterImport)
                guard leased.contains(where: { $0.id == id }) else { throw Failure(description: "the planning job was not leased") }
                try await sql.completeJob(id: id, owner: "scale-bench")
            }
            let hourChains = try await recordAnHour(sql, appId: appId, at: afterImport.addingTimeInterval(1_800))
            let hourly = try await timed(at: afterImport.addingTimeInterval(3_600))
            let looks = try await sql.pendingJobKeys(appId: appId, kind: JobKind.refreshSubscription.rawValue).count
            return Planning(firstEverSeconds: firstEver, hourlySeconds: hourly, hourChains: hourChains, looksPending: looks)
        }
    }

    /// Records for one chain in 730 its latest renewal fact again, signed and recorded `at`;
    /// returns how many chains.
    func recordAnHour(_ sql: SQLStore, appId: String, at: Date) async throws -> Int {
        let chains = try await sql.knownChains(appId: appId)
        let chosen = stride(from: 0, to: chains.count, by: 730).map { chains[$0] }
        for first in stride(from: 0, to: chosen.count, by: 1_000) {
            let group = Array(chosen[first..<min(first + 1_000, chosen.count)])
            let ledgers = try await sql.ledgers(appId: appId, originalTransactionIds: group)
            var changeset = Changeset(appId: appId, at: at)
            for chain in group {
                let latest = (ledgers[chain] ?? []).compactMap { entry -> RenewalFact? in
                    if case .renewal(let fact) = entry.fact { return fact }
                    return nil
                }.max { ($0.signedDate ?? .distantPast) < ($1.signedDate ?? .distantPast) }
                var fact = latest ?? RenewalFact(originalTransactionId: chain)
                fact.signedDate = at
                changeset.entries.append(LedgerEntry(appId: appId, fact: .renewal(fact), source: .import, recordedAt: at))
            }
            _ = try await sql.apply(changeset)
        }
        return chosen.count
    }

    /// The App Store of the planning run: every request fails at once.
    struct AbsentAppStore: HTTPTransport {
        func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
            throw Failure(description: "the benchmark has no App Store to ask")
        }
    }
}
