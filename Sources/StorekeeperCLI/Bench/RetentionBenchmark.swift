import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperStore

/// The measuring step of `storekeeper bench retention`, against a database `storekeeper bench
/// seed` filled: starts `storekeeper serve` as a child process trusting a fresh test
/// certificate authority, saves an offerings document with a retention placement (a message by
/// default, a plan switch for one product), then times Apple's real-time requests
/// (`POST /v1/apps/{app}/retention/realtime`) for the seed's chains, each signed beforehand with
/// the current date and a fresh request identifier, over keep-alive connections; and, as the
/// same run's baseline, as many `GET /health` on the same connections.
struct RetentionBenchmark: Sendable {
    var directory: URL
    /// The PostgreSQL database to read instead of the manifest's.
    var databaseURL: String?
    var requests = 2_000
    var connections = 1
    /// Requests sent (and checked) before the timed ones, untimed.
    var warmup = 20
    /// How many of the manifest's sampled chains the requests cycle through (all when nil):
    /// fewer than the requests asks each chain again, from the server's caches.
    var chainLimit: Int?
    /// Whether to record the seed's missing figures as built before the server starts, so it
    /// does not build them in the background while requests are timed.
    var skipsFigureBuild = false
    /// How long the server may take to start, and one answer to come.
    var patienceSeconds = 1_800.0
    var progress: @Sendable (String) -> Void = { _ in }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What the run measured.
    struct Report: Encodable {
        /// `debug` or `release`: how the measuring `storekeeper` (and so its server) was built.
        var build: String
        var database: String
        var subscriptions: Int
        var chains: Int
        var ledgerRows: Int
        /// Per environment: whether the figures were complete with the served app's settings
        /// before the server started (when not, the server builds them in the background).
        var figuresReady: [String: Bool]
        /// Environments whose figures this run recorded as built (`--skip-figure-build`).
        var figuresMarkedBuilt: [String]
        var loadAverageBefore: String
        var loadAverageAfter: String
        /// From spawning `storekeeper serve` to its first `/health` 200.
        var startSeconds: Double
        /// The server's CPU use over the second before timing (100: one core busy).
        var serverIdleCPUPercent: Double
        var connections: Int
        var warmup: Int
        /// Distinct chains the requests cycled through.
        var chainsAsked: Int
        /// How long signing every request took, before timing.
        var signSeconds: Double
        var retention: Timing
        var health: Timing
        /// The timed real-time answers by kind: `alternateProduct`, `message`,
        /// `promotionalOffer`, `default` (an empty answer), `refused` (400), `failed`.
        var answers: [String: Int]
        /// The server's `storekeeper_retention_requests_total` counters after the run, by outcome.
        var serverOutcomes: [String: Int]
        var memoryAfter: ReadBenchmark.Memory
        /// Every request (warm-up included) not answered 200, by status, with the first body.
        var failures: [String]
    }

    /// Requests timed one by one over the run's connections.
    struct Timing: Encodable {
        var requests: Int
        var seconds: Double
        var perSecond: Double
        var p50Milliseconds: Double
        var p95Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double

        init(latencies: [Double], duration: Duration) {
            let sorted = latencies.sorted()
            requests = sorted.count
            seconds = (duration.seconds * 1000).rounded() / 1000
            perSecond = duration.seconds > 0 ? ReadBenchmark.rounded(Double(sorted.count) / duration.seconds) : 0
            p50Milliseconds = LatencySummary.percentile(0.5, of: sorted)
            p95Milliseconds = LatencySummary.percentile(0.95, of: sorted)
            p99Milliseconds = LatencySummary.percentile(0.99, of: sorted)
            maxMilliseconds = LatencySummary.percentile(1, of: sorted)
        }
    }

    func run() async throws -> Report {
        var manifest = try SeedManifest.read(from: directory)
        if let databaseURL { manifest.databaseURL = databaseURL }
        let chains = manifest.truths.prefix(chainLimit ?? manifest.truths.count).map { ($0.originalTransactionId, $0.productId) }
        guard !chains.isEmpty else { throw Failure(description: "the seed's manifest names no chains (truths)") }
        let loadBefore = ScaleBenchmark.loadAverage()
        let adminKey = "retention-admin-\(UUID().uuidString.lowercased())"
        var configuration = ScaleBenchmark.serverConfiguration(
            manifest, directory: directory, extraKeys: [APIKeyConfiguration(key: adminKey, role: .admin)], logLevel: "notice")
        let authority = try TestCertificateAuthority.generate(
            notBefore: Date().addingTimeInterval(-86_400), notAfter: Date().addingTimeInterval(30 * 86_400), name: "Storekeeper Bench")
        let rootURL = directory.appendingPathComponent("retention-root.der")
        try authority.rootCertificateDER.write(to: rootURL, options: .atomic)
        configuration.apps[0].trustedRoots.append(rootURL.path)
        let app = configuration.apps[0]
        let configURL = directory.appendingPathComponent("retention-server.json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFiles.write(try encoder.encode(configuration), to: configURL)
        let log = directory.appendingPathComponent("retention-server.log")
        let (figuresReady, marked) = try await prepareFigures(manifest, app: app)
        progress("figures ready before the start: \(figuresReady.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")

        let clock = ContinuousClock()
        let starting = clock.now
        let server = try await ServerChild.startOnFreePort(config: configURL, log: log)
        do {
            try await server.waitUntilHealthy(seconds: patienceSeconds)
            let startSeconds = (clock.now - starting).seconds
            progress("server up in \(ReadBenchmark.rounded(startSeconds)) s")

            let timeout = TimeAmount.seconds(Int64(patienceSeconds))
            var clients = (0..<connections).map { _ in ReadClient(port: server.port, timeout: timeout) }
            let document = Self.document()
            let put = await clients[0].timed(
                .PUT, "/v1/apps/\(manifest.appId)/offerings",
                headers: [("Authorization", "Bearer \(adminKey)"), ("Content-Type", "application/json")],
                body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: ["document": document]))
            ).answer
            guard put.status == 200 else { throw Failure(description: "saving the offerings document: \(put.status) \(put.text.prefix(300))") }

            let environment = app.environments.first ?? .production
            let signing = clock.now
            let bodies = try (0..<(warmup + requests)).map { index in
                let (chain, product) = chains[index % chains.count]
                let payload = DecodedRealtimeRequestBody(
                    originalTransactionId: chain, appAppleId: app.appAppleId, productId: product, userLocale: "en-US",
                    requestIdentifier: UUID().uuidString, signedDate: Date(), environment: environment)
                return ByteBuffer(data: try JSONEncoder().encode(["signedPayload": try authority.signRealtimeRequest(payload)]))
            }
            let signSeconds = (clock.now - signing).seconds
            progress("\(bodies.count) requests signed in \(ReadBenchmark.rounded(signSeconds)) s")

            let path = "/v1/apps/\(manifest.appId)/retention/realtime"
            let json = [("Content-Type", "application/json")]
            var failures: [String] = []
            let warm = await Self.send(Array(bodies.prefix(warmup)), path: path, headers: json, clients: &clients)
            failures += Self.failures(of: warm.answers, label: "warm-up")
            let idleCPU = await Self.cpuPercent(pid: server.process.processIdentifier, over: .seconds(1))

            let healthRun = await Self.send([ByteBuffer?](repeating: nil, count: requests), path: "/health", headers: [], clients: &clients)
            failures += Self.failures(of: healthRun.answers, label: "/health")
            let retentionRun = await Self.send(Array(bodies.dropFirst(warmup)), path: path, headers: json, clients: &clients)
            failures += Self.failures(of: retentionRun.answers, label: "retention")
            let outcomes = await Self.serverOutcomes(&clients[0])
            for index in clients.indices { await clients[index].close() }
            let memory = ReadBenchmark.Memory(server.memory)
            await server.stop()

            return Report(
                build: Self.build, database: manifest.databaseURL == nil ? "sqlite" : "postgresql", subscriptions: manifest.subscriptions,
                chains: manifest.chains, ledgerRows: manifest.ledgerRows, figuresReady: figuresReady, figuresMarkedBuilt: marked,
                loadAverageBefore: loadBefore, loadAverageAfter: ScaleBenchmark.loadAverage(), startSeconds: ReadBenchmark.rounded(startSeconds),
                serverIdleCPUPercent: idleCPU, connections: connections, warmup: warmup, chainsAsked: min(chains.count, warmup + requests),
                signSeconds: ReadBenchmark.rounded(signSeconds),
                retention: Timing(latencies: retentionRun.answers.map(\.milliseconds), duration: retentionRun.duration),
                health: Timing(latencies: healthRun.answers.map(\.milliseconds), duration: healthRun.duration),
                answers: Self.kinds(of: retentionRun.answers), serverOutcomes: outcomes, memoryAfter: memory, failures: failures)
        } catch {
            await server.stop()
            throw Failure(description: "\(error) (the server's log: \(log.path))")
        }
    }

    /// Sends `bodies` (a POST of each, or a GET where nil) to `path`, spread over `clients` (one
    /// request in flight on each), timing each; returns the answers and the whole run's time.
    private static func send(
        _ bodies: [ByteBuffer?], path: String, headers: [(String, String)], clients: inout [ReadClient]
    ) async -> (answers: [ReadClient.Answer], duration: Duration) {
        let clock = ContinuousClock()
        let began = clock.now
        let count = clients.count
        let results = await withTaskGroup(of: (Int, ReadClient, [ReadClient.Answer]).self) { group in
            for (worker, client) in clients.enumerated() {
                let mine = Array(stride(from: worker, to: bodies.count, by: count).map { bodies[$0] })
                group.addTask {
                    var client = client
                    var answers: [ReadClient.Answer] = []
                    answers.reserveCapacity(mine.count)
                    for body in mine {
                        answers.append(await client.timed(body == nil ? .GET : .POST, path, headers: headers, body: body).answer)
                    }
                    return (worker, client, answers)
                }
            }
            return await group.reduce(into: [(Int, ReadClient, [ReadClient.Answer])]()) { $0.append($1) }
        }
        let duration = clock.now - began
        for (worker, client, _) in results { clients[worker] = client }
        return (results.flatMap { $0.2 }, duration)
    }

    /// The answers by kind: the one key of a 200's body (or `default` when empty), `refused`
    /// for a 400, `failed` for anything else.
    static func kinds(of answers: [ReadClient.Answer]) -> [String: Int] {
        var kinds: [String: Int] = [:]
        for answer in answers {
            let kind: String
            switch answer.status {
            case 200:
                let object = (try? JSONSerialization.jsonObject(with: Data(answer.text.utf8))) as? [String: Any]
                kind = object.map { $0.keys.sorted().first ?? "default" } ?? "failed"
            case 400: kind = "refused"
            default: kind = "failed"
            }
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    /// One line per status other than 200 among `answers`: how many, and the first's body or error.
    private static func failures(of answers: [ReadClient.Answer], label: String) -> [String] {
        let failed = Dictionary(grouping: answers.filter { $0.status != 200 }, by: \.status)
        return failed.keys.sorted().map { status in
            let first = failed[status]?.first
            return "\(label): \(failed[status]?.count ?? 0) answered \(status) (\(first?.error ?? String(first?.text.prefix(200) ?? "")))"
        }
    }

    /// The server's real-time outcome counters, read from `GET /metrics`.
    private static func serverOutcomes(_ client: inout ReadClient) async -> [String: Int] {
        let metrics = await client.get("/metrics", headers: [])
        var outcomes: [String: Int] = [:]
        for line in metrics.text.split(separator: "\n") where line.hasPrefix("storekeeper_retention_requests_total{") {
            guard let open = line.range(of: "outcome=\""), let close = line[open.upperBound...].firstIndex(of: "\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            outcomes[String(line[open.upperBound..<close]), default: 0] += Int(value)
        }
        return outcomes
    }

    /// The offerings document the run saves: a retention placement whose default shows a
    /// message, and whose one rule proposes the catalog's second subscription to those who
    /// cancel the first.
    static func document() -> [String: Any] {
        let subscriptions = SimulatedProduct.demoCatalog.filter { $0.type == .autoRenewableSubscription }.map(\.productId)
        let from = subscriptions.first ?? "premium.monthly"
        let to = subscriptions.dropFirst().first ?? "premium.yearly"
        return [
            "offerings": [
                ["id": "stay", "retention": ["kind": "message", "messageIdentifier": "6f1c1a52-6a55-4d1e-9a51-000000000001"]],
                [
                    "id": "switch",
                    "retention": ["kind": "alternateProduct", "messageIdentifier": "6f1c1a52-6a55-4d1e-9a51-000000000002", "productId": to],
                ],
            ],
            "placements": [
                [
                    "id": "cancel", "kind": "retention", "defaultOffering": "stay",
                    "rules": [["id": "switch-\(from)", "offering": "switch", "productIds": [from]]],
                ]
            ],
        ]
    }

    /// Whether the figures are complete with `app`'s settings in each environment; with
    /// ``skipsFigureBuild``, those that are not are recorded as built (the database's analytics
    /// then read no figures for them: a benchmark's scratch seed only).
    private func prepareFigures(_ manifest: SeedManifest, app: AppConfiguration) async throws -> ([String: Bool], [String]) {
        var logger = Logger(label: "storekeeper.bench")
        logger.logLevel = .error
        let location = try DatabaseLocation.resolve(databaseURL: manifest.databaseURL, dataDirectory: directory.path)
        let settings = FigureBuild.settings(of: app)
        let skips = skipsFigureBuild
        return try await SQLStore.withStore(location, logger: logger) { sql in
            var ready: [String: Bool] = [:]
            var marked: [String] = []
            for environment in ScaleSeed.figureEnvironments {
                let state = try await sql.figureState(appId: manifest.appId, environment: environment)
                ready[environment] = state?.complete == true && state?.settings == settings
                if skips, ready[environment] != true {
                    // A fresh state (the partial figures removed), then recorded as complete.
                    try await sql.resetFigures(appId: manifest.appId, environment: environment, settings: settings)
                    try await sql.recordFigureProgress(
                        appId: manifest.appId, environment: environment, settings: settings, resumeAfter: nil, complete: true)
                    marked.append(environment)
                }
            }
            return (ready, marked)
        }
    }

    /// The CPU a process used over `interval`, in percent of one core, from `/proc/<pid>/stat`
    /// (whose times are in Linux's fixed 100 ticks a second).
    private static func cpuPercent(pid: Int32, over interval: Duration) async -> Double {
        func ticks() -> Double? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = text.lastIndex(of: ")")
            else { return nil }
            // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
            let fields = text[text.index(after: end)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            return user + system
        }
        let before = ticks()
        try? await Task.sleep(for: interval)
        guard let before, let after = ticks() else { return 0 }
        return ReadBenchmark.rounded((after - before) / 100 / interval.seconds * 100)
    }

    /// How this program was compiled.
    static var build: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }
}
