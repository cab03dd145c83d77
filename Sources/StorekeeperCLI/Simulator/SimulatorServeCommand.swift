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
        let population = PopulationSimulator(
            configuration: PopulationConfiguration(
                customers: 0, start: now, days: 3650, seed: UInt64.random(in: 1...UInt64.max), behaviour: .scripted, products: products,
                sandboxDurations: sandboxDurations),
            store: store, signer: signer)
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
