import AppStoreTestSigning
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperServer
import StorekeeperStore

/// The measuring step of `storekeeper bench read`, against a database `storekeeper bench seed`
/// filled: reads whether the seeded figures are complete with the served app's settings, adds
/// two dashboard admins through the store (as `storekeeper user add` does), starts
/// `storekeeper serve` as a child process (as `bench scale` does), signs in to the dashboard
/// as a browser does, then times every read route one after another — each route's first
/// call after the start apart (cold), then its samples — and last two dashboard users loading
/// Overview, Charts and Cohorts at once. The server's memory is read from `/proc/<pid>/status`
/// idle, after the single-user pass and after the two users. A route that fails or times out
/// is reported and the run goes on.
struct ReadBenchmark: Sendable {
    var directory: URL
    /// The PostgreSQL database to read instead of the manifest's.
    var databaseURL: String?
    var samples = 20
    /// How long the two dashboard users load pages.
    var twoUserSeconds = 20.0
    /// A route's samples stop once they took this long together (its cold call apart).
    var routeSeconds = 120.0
    /// How long the server may take to start, and one answer to come.
    var patienceSeconds = 1_800.0
    var progress: @Sendable (String) -> Void = { _ in }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What the run measured.
    struct Report: Encodable {
        var database: String
        var subscriptions: Int
        var chains: Int
        var ledgerRows: Int
        var seedEnd: String
        /// Per environment: whether `figure_state` said complete, with the served app's settings,
        /// before the server started (when not, the server builds or replays).
        var figuresReady: [String: Bool]
        var loadAverageBefore: String
        var loadAverageAfter: String
        /// From spawning `storekeeper serve` to its first `/health` 200.
        var startSeconds: Double
        var samples: Int
        var routes: [RouteTiming]
        var twoUsers: [UserLoad]
        var twoUserSeconds: Double
        var memoryIdle: Memory
        var memoryAfterSingleUser: Memory
        var memoryAfterTwoUsers: Memory
        /// Routes not measured, and why.
        var skipped: [String]
        /// Every answer other than 200 (or none), by route.
        var failures: [String]
    }

    /// One route: its first call after the start, then its samples.
    struct RouteTiming: Encodable {
        var name: String
        var path: String
        /// 200, or the status of the first call not answered 200 (0: no answer came).
        var status: Int
        var coldMilliseconds: Double
        var samples: Int
        var p50Milliseconds: Double
        var p95Milliseconds: Double
        var maxMilliseconds: Double
        /// The size of the cold answer's body.
        var bytes: Int
        /// Calls (cold or sampled) not answered 200.
        var failures: Int
        /// The first of those: what went wrong, or the start of the answer's body.
        var failure: String?
    }

    /// What one of the two dashboard users saw.
    struct UserLoad: Encodable {
        var user: String
        var rounds: Int
        var pages: [PageLoad]
        var error: String?
    }

    struct PageLoad: Encodable {
        var page: String
        var requests: Int
        var failures: Int
        var p50Milliseconds: Double
        var p95Milliseconds: Double
        var maxMilliseconds: Double
    }

    /// The server's resident memory: `VmRSS` now and `VmHWM` (its peak so far), in MB.
    struct Memory: Encodable {
        var residentMegabytes: Double
        var peakMegabytes: Double

        init(_ memory: ProcessMemory?) {
            residentMegabytes = memory?.residentMegabytes ?? 0
            peakMegabytes = memory?.peakMegabytes ?? 0
        }
    }

    func run() async throws -> Report {
        var manifest = try SeedManifest.read(from: directory)
        if let databaseURL { manifest.databaseURL = databaseURL }
        let loadBefore = ScaleBenchmark.loadAverage()
        let adminKey = "scale-admin-\(UUID().uuidString.lowercased())"
        let configuration = ScaleBenchmark.serverConfiguration(
            manifest, directory: directory, extraKeys: [APIKeyConfiguration(key: adminKey, role: .admin)], logLevel: "notice")
        let configURL = directory.appendingPathComponent("read-server.json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFiles.write(try encoder.encode(configuration), to: configURL)
        let log = directory.appendingPathComponent("read-server.log")
        let users = (1...2).map { DashboardSignIn(email: "bench-read-\($0)@example.com", password: Self.randomPassword()) }
        let figuresReady = try await prepare(manifest, app: configuration.apps[0], users: users)
        progress("figures ready before the start: \(figuresReady.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")

        let clock = ContinuousClock()
        let starting = clock.now
        let server = try await ServerChild.startOnFreePort(config: configURL, log: log)
        do {
            try await server.waitUntilHealthy(seconds: patienceSeconds)
            let startSeconds = (clock.now - starting).seconds
            let idle = Memory(server.memory)
            progress("server up in \(Self.rounded(startSeconds)) s, \(idle.residentMegabytes) MB resident")

            var client = ReadClient(port: server.port, timeout: .seconds(Int64(patienceSeconds)))
            var signInFailure: String?
            let cookie: String
            do {
                cookie = try await users[0].session(with: &client)
            } catch {
                // The dashboard's routes then fail (a redirect to sign in); the others are measured.
                signInFailure = "signing in as \(users[0].email): \(error)"
                cookie = ""
            }
            let plan = Self.routes(manifest, app: configuration.apps[0], adminKey: adminKey, cookie: cookie)
            var timings: [RouteTiming] = []
            for route in plan.routes {
                let timing = await measure(route, client: &client)
                progress(
                    "\(route.name): \(timing.status), cold \(Self.rounded(timing.coldMilliseconds)) ms, "
                        + "p95 \(Self.rounded(timing.p95Milliseconds)) ms over \(timing.samples)")
                timings.append(timing)
            }
            await client.close()
            let afterSingle = Memory(server.memory)

            progress("two dashboard users for \(Int(twoUserSeconds)) s")
            let loads = await twoUsers(port: server.port, users: users, manifest: manifest, app: configuration.apps[0])
            let afterTwo = Memory(server.memory)
            await server.stop()

            var failures = signInFailure.map { [$0] } ?? []
            failures += timings.filter { $0.failures > 0 }.map {
                "\($0.name): \($0.failures) of \($0.samples + 1) calls not 200 (\($0.status): \($0.failure ?? ""))"
            }
            failures += loads.flatMap { load in
                (load.error.map { ["\(load.user): \($0)"] } ?? [])
                    + load.pages.filter { $0.failures > 0 }.map { "\(load.user) \($0.page): \($0.failures) of \($0.requests) not 200" }
            }
            return Report(
                database: manifest.databaseURL == nil ? "sqlite" : "postgresql", subscriptions: manifest.subscriptions, chains: manifest.chains,
                ledgerRows: manifest.ledgerRows, seedEnd: Timestamp.string(from: manifest.end), figuresReady: figuresReady,
                loadAverageBefore: loadBefore, loadAverageAfter: ScaleBenchmark.loadAverage(), startSeconds: startSeconds, samples: samples,
                routes: timings, twoUsers: loads, twoUserSeconds: twoUserSeconds, memoryIdle: idle, memoryAfterSingleUser: afterSingle,
                memoryAfterTwoUsers: afterTwo, skipped: plan.skipped, failures: failures)
        } catch {
            await server.stop()
            throw Failure(description: "\(error) (the server's log: \(log.path))")
        }
    }

    /// Reads whether the seed's figures are complete with `app`'s settings, and saves the
    /// dashboard's benchmark users (admins, with fresh passwords) as `storekeeper user add` does.
    private func prepare(_ manifest: SeedManifest, app: AppConfiguration, users: [DashboardSignIn]) async throws -> [String: Bool] {
        var logger = Logger(label: "storekeeper.bench")
        logger.logLevel = .error
        let location = try DatabaseLocation.resolve(databaseURL: manifest.databaseURL, dataDirectory: directory.path)
        let settings = FigureBuild.settings(of: app)
        let now = Date()
        let accounts = try users.map {
            DashboardUser(email: $0.email, passwordHash: try PasswordHash.make($0.password), role: .admin, apps: nil, createdAt: now, updatedAt: now)
        }
        return try await SQLStore.withStore(location, logger: logger) { sql in
            for account in accounts { _ = try await sql.saveDashboardUser(account) }
            var ready: [String: Bool] = [:]
            for environment in ScaleSeed.figureEnvironments {
                let state = try await sql.figureState(appId: manifest.appId, environment: environment)
                ready[environment] = state?.complete == true && state?.settings == settings
            }
            return ready
        }
    }

    /// Times `route`'s first call, then up to ``samples`` more until they took ``routeSeconds``.
    private func measure(_ route: Route, client: inout ReadClient) async -> RouteTiming {
        let cold = await client.get(route.path, headers: route.headers)
        var status = 200
        var failures = 0
        var failure: String?
        func note(_ answer: ReadClient.Answer) {
            guard answer.status != 200 else { return }
            failures += 1
            if failure == nil {
                status = answer.status
                failure = answer.error ?? String(answer.text.prefix(300))
            }
        }
        note(cold)
        var latencies: [Double] = []
        var spent = 0.0
        while latencies.count < samples, spent < routeSeconds * 1000 {
            let answer = await client.get(route.path, headers: route.headers)
            latencies.append(answer.milliseconds)
            spent += answer.milliseconds
            note(answer)
        }
        let sorted = latencies.sorted()
        return RouteTiming(
            name: route.name, path: route.path, status: status, coldMilliseconds: Self.rounded(cold.milliseconds), samples: latencies.count,
            p50Milliseconds: LatencySummary.percentile(0.5, of: sorted), p95Milliseconds: LatencySummary.percentile(0.95, of: sorted),
            maxMilliseconds: LatencySummary.percentile(1, of: sorted), bytes: cold.bytes, failures: failures, failure: failure)
    }

    /// Two dashboard users at once, each signed in on its own connection, loading Overview,
    /// Charts and Cohorts in turn for ``twoUserSeconds``.
    private func twoUsers(port: Int, users: [DashboardSignIn], manifest: SeedManifest, app: AppConfiguration) async -> [UserLoad] {
        let (seconds, timeout) = (twoUserSeconds, TimeAmount.seconds(Int64(patienceSeconds)))
        return await withTaskGroup(of: UserLoad.self) { group in
            for user in users {
                group.addTask {
                    var client = ReadClient(port: port, timeout: timeout)
                    let cookie: String
                    do {
                        cookie = try await user.session(with: &client)
                    } catch {
                        await client.close()
                        return UserLoad(user: user.email, rounds: 0, pages: [], error: "\(error)")
                    }
                    let pages = Self.dashboardPages(manifest, app: app, cookie: cookie)
                    var latencies = pages.map { _ in [Double]() }
                    var failures = pages.map { _ in 0 }
                    var rounds = 0
                    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
                    while ContinuousClock.now < deadline {
                        for (index, page) in pages.enumerated() {
                            let answer = await client.get(page.path, headers: page.headers)
                            latencies[index].append(answer.milliseconds)
                            if answer.status != 200 { failures[index] += 1 }
                        }
                        rounds += 1
                    }
                    await client.close()
                    return UserLoad(
                        user: user.email, rounds: rounds,
                        pages: pages.indices.map { index in
                            let sorted = latencies[index].sorted()
                            return PageLoad(
                                page: pages[index].name, requests: sorted.count, failures: failures[index],
                                p50Milliseconds: LatencySummary.percentile(0.5, of: sorted),
                                p95Milliseconds: LatencySummary.percentile(0.95, of: sorted),
                                maxMilliseconds: LatencySummary.percentile(1, of: sorted))
                        })
                }
            }
            return await group.reduce(into: []) { $0.append($1) }.sorted { $0.user < $1.user }
        }
    }

    static func randomPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<24).map { _ in String(UInt8.random(in: 0...15, using: &generator), radix: 16) }.joined()
    }

    static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
