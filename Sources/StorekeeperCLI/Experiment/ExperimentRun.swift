import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import ServiceLifecycle
import StorekeeperApps
import StorekeeperJobs
import StorekeeperKit
import StorekeeperServer
import StorekeeperStore

/// One run of an experiment scenario: the server (SQLite in a temporary folder) and the
/// simulator's device endpoints on loopback, on one simulated clock. Each arriving customer's
/// phone runs StorekeeperKit: it fetches the placement's offering, and the customer buys its first
/// package with the chance the product's knobs give; renewals and Apple's notifications follow
/// the clock; at the end the experiment's results come from the server's API.
struct ExperimentRun {
    let scenario: ExperimentScenario
    let seed: UInt64

    static let appId = "experiment"
    static let bundleId = "com.example.storekeeper.experiment"
    static let appAppleId: Int64 = 1_234_567_892
    /// A fixed start, so a seed gives the same run on any day.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    struct Report {
        var text: String
        var passed: Bool
    }

    func run() async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-experiment-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = Self.start
        let clock = SimulationClock(start: start)
        let lifetime = 3 * 365 * 86_400.0
        let ca = try TestCertificateAuthority.generate(notBefore: start.addingTimeInterval(-86_400), notAfter: start.addingTimeInterval(lifetime))
        let receipts = try ReceiptSigningAuthority.generate(
            validFrom: start.addingTimeInterval(-86_400), validUntil: start.addingTimeInterval(lifetime))
        let appleStore = SimulatedAppStore(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environment: .production)
        let signer = SimulatorSigner(certificateAuthority: ca, receiptAuthority: receipts)
        let populationConfiguration = PopulationConfiguration(
            customers: 0, start: start, days: scenario.arrivalDays + scenario.observationDays + 1, seed: seed, behaviour: .scripted,
            products: scenario.products)
        let root = directory.appendingPathComponent("root.der")
        try ca.rootCertificateDER.write(to: root)
        func key(_ prefix: String) -> String { prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }
        let (appKey, adminKey) = (key("sk_app_"), key("sk_admin_"))
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.appendingPathComponent("data").path,
            apps: [
                AppConfiguration(
                    id: Self.appId, bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: [.production], trustedRoots: [root.path],
                    apiKeys: [APIKeyConfiguration(key: appKey, role: .app), APIKeyConfiguration(key: adminKey, role: .admin)],
                    products: scenario.products.map(\.catalogProduct))
            ], logLevel: "error")
        var logger = Logger(label: "storekeeper.experiment")
        logger.logLevel = .error
        let store = try await SQLStore.open(
            try DatabaseLocation.resolve(databaseURL: nil, dataDirectory: configuration.dataDirectory), logger: logger)
        let ports = PortMailbox()
        var dependencies = ServerDependencies(
            store: store, clock: { clock.now }, logger: logger, runsInboxWorker: false, storeServices: [StoreService(store: store)], scheduler: nil)
        dependencies.runsDispatcher = false
        dependencies.onServerRunning = { port in await ports.put("server", port) }
        // The inbox is drained by hand with simulated time: the server's own work.
        let (application, work) = try buildServer(configuration: configuration, dependencies: dependencies)
        let server = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        return try await HTTPClient.withDemoClient { client in
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await server.run() }
                var devices: ServiceGroup?
                do {
                    let serverURL = "http://127.0.0.1:\(try await ports.take("server"))"
                    let delivery = NotificationDelivery(
                        store: appleStore,
                        configuration: DeliveryConfiguration(v2URL: URL(string: "\(serverURL)/v1/apps/\(Self.appId)/notifications")),
                        transport: AsyncHTTPNotificationTransport(client: client))
                    let simulated = SimulatedDevices(
                        population: PopulationSimulator(configuration: populationConfiguration, store: appleStore, signer: signer), clock: clock,
                        delivery: delivery)
                    let router = Router(context: BasicRequestContext.self)
                    DeviceEndpoints(devices: simulated).addRoutes(to: router)
                    let deviceApp = Application(
                        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "simulated-devices"),
                        onServerRunning: { channel in await ports.put("devices", channel.localAddress?.port ?? 0) }, logger: logger)
                    let group = ServiceGroup(configuration: .init(services: [deviceApp], gracefulShutdownSignals: [], logger: logger))
                    devices = group
                    tasks.addTask { try await group.run() }
                    let world = World(
                        serverURL: serverURL, devicesURL: "http://127.0.0.1:\(try await ports.take("devices"))", appKey: appKey, adminKey: adminKey,
                        directory: directory, client: client, clock: clock, devices: simulated, delivery: delivery, work: work)
                    let report = try await simulate(world)
                    await devices?.triggerGracefulShutdown()
                    await server.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                    return report
                } catch {
                    await devices?.triggerGracefulShutdown()
                    await server.triggerGracefulShutdown()
                    try? await tasks.waitForAll()
                    throw error
                }
            }
        }
    }

    /// What the simulation talks to.
    struct World {
        var serverURL: String
        var devicesURL: String
        var appKey: String
        var adminKey: String
        var directory: URL
        var client: HTTPClient
        var clock: SimulationClock
        var devices: SimulatedDevices
        var delivery: NotificationDelivery
        var work: ServerWork

        /// Moves the clock: renewals and expiries happen, Apple's notifications reach the server
        /// and are processed.
        func step(to instant: Date) async throws {
            clock.set(instant)
            try await devices.tick()
            _ = await delivery.deliverDue(now: instant)
            _ = try await work.drainInbox()
        }

        func send(_ method: HTTPMethod, _ path: String, key: String, body: Data? = nil) async throws -> (Int, String) {
            try await DemoHTTP.send(client: client, method: method, url: serverURL + path, key: key, body: body)
        }
    }

    func simulate(_ world: World) async throws -> Report {
        let document = try JSONSerialization.data(
            withJSONObject: ["document": try JSONSerialization.jsonObject(with: try JSONEncoder().encode(scenario.offerings))])
        let (saved, answer) = try await world.send(.PUT, "/v1/apps/\(Self.appId)/offerings", key: world.adminKey, body: document)
        guard saved == 200 else { throw CLIFailure.usage("the server refused the scenario's offerings (\(saved)): \(answer.prefix(500))") }
        let (_, keyAnswer) = try await world.send(.GET, "/v1/apps/\(Self.appId)/state-signing-key", key: world.appKey)
        let stateKey = (try? JSONSerialization.jsonObject(with: Data(keyAnswer.utf8)) as? [String: Any])?["publicKey"] as? String
        let products = Dictionary(scenario.products.map { ($0.productId, $0) }, uniquingKeysWith: { first, _ in first })
        let arrivals = scenario.arrivalDays * 86_400
        var bought = 0
        for index in 0..<scenario.customers {
            try await world.step(to: Self.start.addingTimeInterval(arrivals * Double(index) / Double(scenario.customers)))
            let customer = "customer-\(index)"
            let phone = try StorekeeperKit.Storekeeper(
                configuration: StorekeeperConfiguration(
                    serverURL: URL(string: world.serverURL)!, appId: Self.appId, apiKey: world.appKey, appUserId: customer,
                    serverPublicKey: stateKey, stateDirectory: world.directory.appendingPathComponent("devices/\(customer)"), deliveryAttempts: 2),
                store: SimulatorStoreBackend(simulator: URL(string: world.devicesURL)!, customerId: customer, client: world.client))
            let offering = try await phone.offering(placement: scenario.placement)
            guard let productId = offering.packages.first?.productId, let product = products[productId] else { continue }
            var random = SeededRandom.derived(seed: seed, customer)
            guard random.chance(product.purchaseProbability(base: scenario.baseConversion, referencePrice: scenario.referencePrice)) else { continue }
            let outcome = await phone.purchase(productId: productId)
            guard case .delivered = outcome else {
                throw CLIFailure(exitCode: 1, message: "\(customer)'s purchase did not reach the server: \(outcome)")
            }
            bought += 1
        }
        let end = Self.start.addingTimeInterval(arrivals)
        var day = 0.0
        while day < scenario.observationDays {
            day = min(scenario.observationDays, day + 1)
            try await world.step(to: end.addingTimeInterval(day * 86_400))
        }
        let (status, text) = try await world.send(
            .GET, "/v1/apps/\(Self.appId)/experiments/\(scenario.experiment)/results?environment=Production", key: world.adminKey)
        guard status == 200, let results = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw CLIFailure(exitCode: 1, message: "the server did not answer the results (\(status)): \(text.prefix(500))")
        }
        return report(results, bought: bought)
    }

    func report(_ results: [String: Any], bought: Int) -> Report {
        let variants = results["variants"] as? [[String: Any]] ?? []
        let conversion = results["conversion"] as? [[String: Any]] ?? []
        let currency = results["currency"] as? String ?? ""
        func number(_ value: Any?) -> Double { (value as? NSNumber)?.doubleValue ?? 0 }
        var lines = [
            "Experiment \(scenario.experiment) on \(scenario.placement): \(scenario.customers) customers over \(Int(scenario.arrivalDays)) days "
                + "(seed \(seed)), \(bought) bought through StorekeeperKit; results \(Int(scenario.observationDays)) days after the last arrival"
        ]
        var best: [String: Double] = [:]
        for (row, stats) in zip(variants, conversion) {
            let id = row["id"] as? String ?? "?"
            let exposed = Int(number(row["exposed"]))
            let paying = Int(number(row["payingCustomers"]))
            let proceeds = number((row["proceedsPerExposed"] as? [String: Any])?["30d"])
            best[id] = number(stats["probabilityToBeBest"])
            lines.append(
                String(
                    format: "  variant %@ (%@): exposed %d, paying %d (%.1f%%), proceeds per exposed customer at 30 days %.2f %@, "
                        + "P(beats control) %.1f%%, P(best) %.1f%%, difference %+.1f … %+.1f points",
                    id, row["offering"] as? String ?? "?", exposed, paying, exposed > 0 ? 100 * Double(paying) / Double(exposed) : 0, proceeds,
                    currency, 100 * number(stats["probabilityToBeatControl"]), 100 * number(stats["probabilityToBeBest"]),
                    100 * number(stats["differenceLower"]), 100 * number(stats["differenceUpper"])))
        }
        var passed = !best.isEmpty
        if let winner = scenario.expect.winner {
            let needed = scenario.expect.minimumProbabilityToBeBest ?? 0.95
            let met = (best[winner] ?? 0) >= needed
            passed = passed && met
            lines.append("expected: \(winner) best with probability ≥ \(Int(needed * 100))% — \(met ? "met" : "NOT met")")
        }
        if let ceiling = scenario.expect.noWinnerAbove {
            let top = best.max { $0.value < $1.value }
            let met = (top?.value ?? 0) <= ceiling
            passed = passed && met
            lines.append(
                "expected: no variant best with probability above \(Int(ceiling * 100))% — \(met ? "met" : "NOT met")"
                    + (top.map { String(format: " (highest: %@ at %.1f%%)", $0.key, 100 * $0.value) } ?? ""))
        }
        return Report(text: lines.joined(separator: "\n") + "\n", passed: passed)
    }
}
