import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `storekeeper simulator serve`: the App Store simulator alone, on a port: Apple's App Store
/// Server API and `verifyReceipt`, App Store Server Notifications sent to a URL with Apple's
/// retries, and the device endpoints through which simulated devices buy, cancel, refund and
/// restore. Runs until SIGINT or SIGTERM.
public struct SimulatorServeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a local App Store: Apple's server API, notifications and device endpoints.",
        discussion: """
            The folder given by --ca keeps the signing chain, the API key and a ready configuration for
            `storekeeper serve` (storekeeper.json: the app `local`, trusting this simulator), so both
            can be restarted independently.
            """
    )

    @Option(help: "The TCP port to listen on.")
    var port: Int = 9090

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The folder of the simulator's certificate authority, keys and the server configuration it writes.")
    var ca: String = "storekeeper-local-app-store"

    @Option(help: "Where App Store Server Notifications V2 go (default: the local server's app `local`).")
    var notificationURL: String = "http://127.0.0.1:8080/v1/apps/local/notifications"

    @Option(help: "Simulated seconds per real second (e.g. 86400: a day per second).")
    var clockRate: Double = 1

    @Option(help: "The app's bundle id (kept in the folder once set).")
    var bundleId: String?

    @Option(help: "Sandbox or Production.")
    var environment: String = "Sandbox"

    @Flag(help: "Sandbox's short periods (a month lasts 5 minutes), as in Apple's sandbox.")
    var sandboxDurations = false

    @Option(help: "Customers who already bought before the simulator starts (their history spans --history-days).")
    var customers = 0

    @Option(help: "How many days of history the --customers have behind them.")
    var historyDays = 120.0

    @Option(help: "The seed of the --customers' choices (the same seed gives the same population).")
    var seed: UInt64?

    @Option(help: "Write what RevenueCat would export of the --customers to this file (scheduled data export, ; delimited).")
    var revenuecatExport: String?

    @Option(help: "Where the simulator's truth per app user id goes (default: the export's path + .truth.json).")
    var revenuecatTruth: String?

    public init() {}

    public func run() async throws {
        guard let notifications = URL(string: notificationURL), notifications.scheme?.hasPrefix("http") == true else {
            throw CLIFailure.usage("--notification-url must be an http(s) URL")
        }
        guard clockRate > 0, clockRate <= 10_000_000 else { throw CLIFailure.usage("--clock-rate must be above 0") }
        let environment: AppStoreEnvironment
        switch self.environment.lowercased() {
        case "sandbox": environment = .sandbox
        case "production": environment = .production
        default: throw CLIFailure.usage("--environment must be Sandbox or Production")
        }
        let files: LocalAppStoreFiles
        do {
            files = try LocalAppStoreFiles.open(URL(fileURLWithPath: ca), bundleId: bundleId)
        } catch {
            throw CLIFailure.usage("cannot use \(ca): \(error)")
        }
        let now = Date()
        let clock = SimulationClock(start: now)
        clock.followWallClock(rate: clockRate)
        let receipts = try ReceiptSigningAuthority.generate(
            validFrom: now.addingTimeInterval(-86_400), validUntil: now.addingTimeInterval(20 * 365 * 86_400))
        let signer = SimulatorSigner(certificateAuthority: files.authority, receiptAuthority: receipts)
        let store = SimulatedAppStore(bundleId: files.identity.bundleId, appAppleId: files.identity.appAppleId, environment: environment)
        let products = SimulatedProduct.demoCatalog
        guard customers >= 0, historyDays > 0 else {
            throw CLIFailure.usage("--customers must be 0 or more and --history-days above 0")
        }
        let population = PopulationSimulator(
            configuration: populationConfiguration(now: now, products: products), store: store, signer: signer)
        if customers > 0 {
            // The customers' past, played before the clock starts: no notifications are sent for it.
            population.signsData = false
            _ = try population.advance(to: now)
            population.signsData = true
        }
        if let revenuecatExport {
            let writer = RevenueCatExportWriter(store: store, products: products)
            let (csv, truth) = writer.write(customerIds: population.plannedCustomerIds, at: now)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            let truthPath = revenuecatTruth ?? revenuecatExport + ".truth.json"
            do {
                try Data(csv.utf8).write(to: URL(fileURLWithPath: revenuecatExport))
                try encoder.encode(truth).write(to: URL(fileURLWithPath: truthPath))
            } catch {
                throw CLIFailure.usage("cannot write \(revenuecatExport): \(error.localizedDescription)")
            }
            Console.out(
                Data("RevenueCat export: \(revenuecatExport) (\(truth.rows) rows, \(truth.customers.count) customers); truth: \(truthPath)\n".utf8))
        }
        let delivery = NotificationDelivery(
            store: store, configuration: DeliveryConfiguration(v2URL: notifications, dropRate: 0, attemptLossRate: 0, duplicateRate: 0),
            transport: AsyncHTTPNotificationTransport())
        let endpoints = try SimulatorEndpoints(
            store: store, signer: signer, clock: clock,
            configuration: SimulatorHTTPConfiguration(
                issuerId: files.identity.issuerId, keys: [files.identity.keyId: files.apiKey.publicKey],
                onNotificationCreated: { record in _ = delivery.enqueue(record) }))
        // A cancellation asks the real-time URL the app configured, if any, as Apple's sheet does.
        let devices = SimulatedDevices(
            population: population, clock: clock, delivery: delivery, retentionMessaging: endpoints.retentionMessaging, client: .shared,
            retentionTimeout: .seconds(2))
        let router = Router(context: BasicRequestContext.self)
        endpoints.addRoutes(to: router)
        DeviceEndpoints(devices: devices).addRoutes(to: router)
        router.get("/health") { _, _ in "ok" }
        var logger = Logger(label: "local-app-store")
        logger.logLevel = .notice
        let host = self.host
        let ca = files.directory.path
        let rate = clockRate
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "local-app-store"),
            services: [ClockTicker(devices: devices), DeliveryService(delivery: delivery, clock: clock)],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let url = "http://\(host):\(port)"
                do {
                    try files.writeServerConfiguration(simulatorURL: url, products: products, environment: environment)
                } catch {
                    Console.err(Data("storekeeper: cannot write \(files.serverConfigurationFile.path): \(error)\n".utf8))
                }
                Console.out(
                    Data(
                        """
                        Local App Store on \(url) (\(environment.rawValue), clock ×\(rate), bundle \(files.identity.bundleId))
                          certificate authority and keys: \(ca)
                          notifications to:               \(notifications.absoluteString)
                          server configuration:           \(files.serverConfigurationFile.path)
                            storekeeper serve --config \(files.serverConfigurationFile.path)
                          app API key (app "local"):      \(files.identity.appKey)
                          buy from a simulated device:
                            storekeeper device purchase --server http://127.0.0.1:8080 --api-key \(files.identity.appKey) \\
                              --simulator \(url) --customer alice --product \(products.first?.productId ?? "")
                          products: \(products.map(\.productId).joined(separator: ", "))

                        """.utf8))
            },
            logger: logger)
        try await app.runService()
    }
}

extension SimulatorServeCommand {
    /// The population: none but the devices' purchases, or `--customers` who arrived over the
    /// last `--history-days` and keep renewing, churning and refunding as the clock runs.
    func populationConfiguration(now: Date, products: [SimulatedProduct]) -> PopulationConfiguration {
        let seed = self.seed ?? UInt64.random(in: 1...UInt64.max)
        guard customers > 0 else {
            return PopulationConfiguration(
                customers: 0, start: now, days: 3650, seed: seed, behaviour: .scripted, products: products, sandboxDurations: sandboxDurations)
        }
        var behaviour = PopulationBehaviour()
        // Family sharing gives a second account the same subscription: left out, so each
        // account's truth is its own purchases.
        behaviour.familySharingRate = 0
        let future = 3650.0
        return PopulationConfiguration(
            customers: customers, start: now.addingTimeInterval(-historyDays * 86_400), days: historyDays + future,
            arrivalShare: historyDays / (historyDays + future), seed: seed, behaviour: behaviour, products: products,
            sandboxDurations: sandboxDurations)
    }
}

/// Applies the population's due events (renewals, expiries) as the clock moves.
struct ClockTicker: Service {
    let devices: SimulatedDevices

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await devices.tick()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

/// Sends the notifications with Apple's retry schedule.
struct DeliveryService: Service {
    let delivery: NotificationDelivery
    let clock: SimulationClock

    func run() async throws {
        await cancelWhenGracefulShutdown {
            _ = await delivery.run(clock: clock)
        }
    }
}
