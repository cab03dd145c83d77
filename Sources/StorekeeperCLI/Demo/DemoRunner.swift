import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Synchronization

/// Runs the demo: the Storekeeper server (SQLite) and the App Store simulator side by side in
/// one process, talking over loopback HTTP exactly as they would across the internet.
///
/// The simulation clock drives both: the population moves in steps of simulated time; after each
/// step Apple's notifications due are delivered to the server's notification URL, the devices
/// report their purchases to the server's API, the server's inbox is drained and its
/// reconciliation jobs due at that instant run against the simulator's App Store Server API.
struct DemoRunner {
    let settings: DemoSettings

    struct Outcome {
        var allMatched: Bool
    }

    func run() async throws -> Outcome {
        let world = try DemoWorld(settings: settings)
        var logger = Logger(label: "storekeeper.demo")
        logger.logLevel = .error
        let counter = APICallCounter()
        let ports = PortMailbox()

        let endpoints = try SimulatorEndpoints(
            store: world.store, signer: world.signer, clock: world.clock,
            configuration: SimulatorHTTPConfiguration(
                issuerId: DemoWorld.issuerId, keys: [DemoWorld.keyId: world.apiKey.publicKey], sharedSecret: world.sharedSecret))
        let appleRouter = Router(context: BasicRequestContext.self)
        appleRouter.add(middleware: counter)
        endpoints.addRoutes(to: appleRouter)
        let apple = Application(
            router: appleRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "simulated-app-store"),
            onServerRunning: { channel in await ports.put("apple", channel.localAddress?.port ?? 0) }, logger: logger)

        // The app's backend: a webhook receiver on loopback.
        let receiver = DemoReceiver(key: world.webhookKey, failingCustomer: DemoWorld.failingCustomer)
        let receiverRouter = Router(context: BasicRequestContext.self)
        receiver.addRoutes(to: receiverRouter)
        let backend = Application(
            router: receiverRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "demo-backend"),
            onServerRunning: { channel in await ports.put("receiver", channel.localAddress?.port ?? 0) }, logger: logger)

        let appleServices = ServiceGroup(configuration: .init(services: [apple, backend], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                do {
                    try await appleServices.run()
                } catch {
                    await ports.fail("apple", "the App Store simulator could not start: \(error)")
                    throw error
                }
            }
            let applePort: Int
            let receiverPort: Int
            do {
                applePort = try await ports.take("apple")
                receiverPort = try await ports.take("receiver")
            } catch {
                try? await tasks.waitForAll()
                throw error
            }
            let serverGroup = ServerGroupBox()
            do {
                let outcome = try await runServer(
                    applePort: applePort, receiverPort: receiverPort, receiver: receiver, world: world, logger: logger, counter: counter,
                    ports: ports, tasks: &tasks, box: serverGroup)
                await serverGroup.group?.triggerGracefulShutdown()
                await appleServices.triggerGracefulShutdown()
                try await tasks.waitForAll()
                // A check's own temporary folder goes when everything matched; kept to inspect otherwise.
                if settings.check, settings.dataDirectory == nil, outcome.allMatched {
                    try? FileManager.default.removeItem(at: world.directory)
                }
                return outcome
            } catch {
                // Stop what runs, quietly, then report the first failure.
                await serverGroup.group?.triggerGracefulShutdown()
                await appleServices.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }

    /// Starts the server beside the running simulator and runs the demo loop against both.
    private func runServer(
        applePort: Int, receiverPort: Int, receiver: DemoReceiver, world: DemoWorld, logger: Logger, counter: APICallCounter, ports: PortMailbox,
        tasks: inout ThrowingTaskGroup<Void, any Error>, box: ServerGroupBox
    ) async throws -> Outcome {
        let configuration = world.serverConfiguration(applePort: applePort, receiverPort: receiverPort)
        // The simulated year's database is thrown away: its commits need not wait for the disk
        // (a power cut would end the simulation anyway), so the year is not spent in `fsync`.
        // The check compares the database with the simulated world from its first day.
        if let url = settings.databaseURL,
            try await SQLStore.withStore(.postgres(url: url), logger: logger, migrate: false, { try await $0.schemaVersion() }) > 0
        {
            throw CLIFailure(exitCode: 2, message: "--database-url: the demo needs an empty database (this one has Storekeeper's tables)")
        }
        let store = try await SQLStore.open(
            try DatabaseLocation.resolve(databaseURL: settings.databaseURL, dataDirectory: configuration.dataDirectory), logger: logger,
            durability: .throwaway)
        // The demo's HTTP client sends the webhooks too; it lives as long as the loop.
        return try await HTTPClient.withDemoClient { client in
            var dependencies = ServerDependencies(
                store: store, clock: { [clock = world.clock] in clock.now }, logger: logger, runsInboxWorker: false,
                storeServices: [StoreService(store: store)],
                appleClients: try AppleClients.live(configuration: configuration, rateBudget: DemoWorld.rateBudget), scheduler: nil)
            dependencies.onServerRunning = { port in await ports.put("server", port) }
            dependencies.runsDispatcher = false
            dependencies.webhookTransport = HTTPWebhookTransport(client: client)
            // The inbox, the scheduler and the outbox step with simulated time: the server's own
            // work (`work`), by hand.
            let (server, work) = try buildServer(configuration: configuration, dependencies: dependencies)
            let serverServices = ServiceGroup(
                configuration: .init(
                    services: [server], gracefulShutdownSignals: settings.check ? [] : [.sigterm, .sigint], logger: logger))
            box.group = serverServices
            let stop = DemoStop()
            tasks.addTask {
                defer { stop.set() }
                do {
                    try await serverServices.run()
                } catch {
                    await ports.fail(
                        "server",
                        "the server could not listen on \(configuration.host):\(configuration.port) (\(error)); choose another --port, or --port 0")
                    throw error
                }
            }
            let serverPort = try await ports.take("server")
            // The server migrated the database before listening: the dashboard's sign-in can go in.
            try await store.saveDashboardUser(
                DashboardUser(
                    email: DemoWorld.dashboardEmail, passwordHash: try PasswordHash.make(world.dashboardPassword), role: .admin, apps: nil,
                    createdAt: world.clock.now, updatedAt: world.clock.now))
            return try await DemoLoop(
                world: world, settings: settings, work: work, counter: counter,
                client: client, serverPort: serverPort, stop: stop, receiver: receiver, receiverPort: receiverPort,
                devices: DemoDevices(
                    serverURL: URL(string: "http://127.0.0.1:\(serverPort)")!, apiKey: world.adminKey,
                    directory: world.directory.appendingPathComponent("devices"))
            ).run()
        }
    }
}
