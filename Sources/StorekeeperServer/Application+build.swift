import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import StorekeeperApps
import StorekeeperDashboard
import StorekeeperHTTP
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperStore

/// Runs an ``SQLStore``'s background machinery as a service (and closes it at the end, then
/// lets go of the data directory's lock, which tells `storekeeper restore` a server is using it).
public struct StoreService: Service {
    public let store: SQLStore
    public let lock: DataDirectoryLock?
    public init(store: SQLStore, lock: DataDirectoryLock? = nil) {
        self.store = store
        self.lock = lock
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            try? await store.run()
        }
        try? await store.close()
        lock?.release()
    }
}

/// Builds the server from its configuration: opens the database it names (SQLite in the data
/// directory, or PostgreSQL), migrates it before listening, and runs the inbox worker.
///
/// `telemetry` is the tracing exporter (``ServerTracing/bootstrap(environment:logger:)``), run first in the
/// group so that it stops last and flushes the spans of everything else's shutdown.
public func buildApplication(
    configuration: StorekeeperApps.ServerConfiguration, onServerRunning: (@Sendable (Int) async -> Void)? = nil,
    telemetry: (any Service)? = nil
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "storekeeper")
    logger.logLevel = configuration.logLevel.flatMap(Logger.Level.init(rawValue:)) ?? .info
    let location = try DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
    logger.info("opening the database", metadata: ["database": "\(location.redactedDescription)"])
    // The lock comes first: a server that a running restore will refuse must not open (and
    // migrate) the database the restore is replacing.
    var lock: DataDirectoryLock?
    if case .sqlite(let path) = location { lock = try DataDirectoryLock(databasePath: path, mode: .shared) }
    let store: SQLStore
    do {
        store = try await SQLStore.open(location, logger: logger)
    } catch {
        lock?.release()
        throw error
    }
    let metrics = ServerMetrics()
    var dependencies = ServerDependencies(
        store: store, logger: logger, storeServices: [StoreService(store: store, lock: lock)],
        appleClients: try AppleClients.live(configuration: configuration, metrics: metrics), scheduler: SchedulerConfiguration())
    dependencies.metrics = metrics
    dependencies.onServerRunning = onServerRunning
    if let telemetry { dependencies.storeServices.insert(telemetry, at: 0) }
    if let readURL = configuration.readDatabaseURL {
        let (reads, watch) = try store.standbyReads(
            url: readURL, maximumLag: .milliseconds(Int64(configuration.readMaximumLagSeconds * 1000)), logger: logger)
        dependencies.reads = reads
        dependencies.replication = watch
        dependencies.storeServices.append(StoreService(store: reads))
        logger.info("reads that may lag go to the standby", metadata: ["standby": "\(DatabaseLocation.postgres(url: readURL).redactedDescription)"])
    }
    return try buildApplication(configuration: configuration, dependencies: dependencies)
}

/// Builds the server with the given dependencies (tests call this).
public func buildApplication(configuration: StorekeeperApps.ServerConfiguration, dependencies: ServerDependencies) throws -> some ApplicationProtocol
{
    try buildServer(configuration: configuration, dependencies: dependencies).application
}

/// The composition root: the HTTP application and the background work it runs, over one app
/// directory (the stored webhooks reloaded at start) and one ``NotificationDoor`` (the bodies the
/// notification route verified, its counts). A driver of simulated time (the demo, `storekeeper experiment`) turns
/// the inbox worker, the scheduler and the dispatcher off in `dependencies` and steps `work` by
/// hand: the same machinery `serve` runs, never a second copy.
public func buildServer(
    configuration: StorekeeperApps.ServerConfiguration, dependencies: ServerDependencies
) throws -> (application: some ApplicationProtocol, work: ServerWork) {
    let directory = try AppDirectory(configuration: configuration)
    let metrics = dependencies.metrics ?? ServerMetrics()
    metrics.registerAtStartup(configuration: configuration)
    let signal =
        dependencies.inboxSignal
        ?? InboxSignal(
            quiet: configuration.inbox.burstQuiet(backend: dependencies.store.backendName),
            limit: .milliseconds(configuration.inbox.burstLimitMilliseconds))
    let store = dependencies.store
    let work = ServerWork(
        apps: directory, door: NotificationDoor(), dependencies: dependencies, scheduling: dependencies.scheduler ?? SchedulerConfiguration(),
        metrics: metrics,
        inboxWritten: { await signal.notify() })
    var api = StorekeeperAPI(
        apps: directory, door: work.door, store: store, clock: dependencies.clock, signal: signal, metrics: metrics,
        maximumBodySize: configuration.maximumBodySize, appleClients: dependencies.appleClients)
    api.maximumNotificationBodySize = configuration.maximumNotificationBodySize
    api.bodyTimeout = .milliseconds(Int64(configuration.connections.bodyTimeoutSeconds * 1000))
    api.offlineWindow = configuration.offlineWindowSeconds
    api.revenueCatPathPrefix = configuration.revenueCatPathPrefix.split(separator: "/").joined(separator: "/")
    api.reads = dependencies.reads ?? store
    api.replication = dependencies.replication
    let router = Router(context: APIRequestContext.self)
    router.add(middleware: MetricsMiddleware(metrics: metrics))
    router.add(middleware: JSONErrorMiddleware())
    api.addRoutes(to: router)
    Dashboard(api: api, templates: try DashboardTemplates.load(), configuration: configuration.dashboard).addRoutes(to: router)

    var services = dependencies.storeServices
    let startup = StartupGate()
    if dependencies.runsInboxWorker {
        services.append(
            startup.holding(
                InboxWorker(
                    processor: work.processor, configuration: configuration.inbox, signal: signal,
                    releaseLeasesAtStart: store.backendName == "sqlite")))
        services.append(
            startup.holding(
                InboxRetention(
                    store: store, clock: dependencies.clock, logger: dependencies.logger, retentionDays: configuration.inbox.retentionDays)))
        services.append(
            startup.holding(
                TableRetention(
                    store: store, configuration: configuration.retention, clock: dependencies.clock, logger: dependencies.logger)))
    }
    if dependencies.scheduler != nil {
        services.append(startup.holding(work.scheduler))
    }
    services.append(startup.holding(FigureBuilder(apps: directory, store: store, clock: dependencies.clock, logger: dependencies.logger)))
    if dependencies.runsDispatcher {
        services.append(startup.holding(work.dispatcher))
    }
    for app in configuration.apps where app.allowUnsignedTestData == true {
        dependencies.logger.warning(
            "app accepts unsigned test data beside signed data (allowUnsignedTestData): anyone can forge its purchases",
            metadata: ["app": "\(app.id)", "environments": "\(app.environments)"])
    }
    let limits = configuration.connections
    let idle = TimeAmount.milliseconds(Int64(limits.idleTimeoutSeconds * 1000))
    let head = TimeAmount.milliseconds(Int64(limits.headTimeoutSeconds * 1000))
    let http1 = HTTPServerBuilder.http1(
        configuration: .init(
            additionalChannelHandlers: [RequestHeadDeadline(headTimeout: head, idleTimeout: idle)], idleTimeout: idle,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHeaderBytes, maxHeaderListSize: limits.maximumHeaderBytes, maxHeaderFieldCount: 200)))
    var app = Application(
        router: router,
        server: try configuration.tls.map { try HTTPServerBuilder.tls(http1, tlsConfiguration: try $0.serverConfiguration()) } ?? http1,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "storekeeper",
            availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)),
        services: services,
        onServerRunning: { [onServerRunning = dependencies.onServerRunning] channel in
            await onServerRunning?(channel.localAddress?.port ?? 0)
        },
        logger: dependencies.logger
    )
    let apps = configuration.apps
    let stateKeyFile = configuration.stateSigningKey
    let stateKeyBox = api.stateSigningKey
    let initialAdmin = configuration.dashboard.initialAdmin
    let migrations = configuration.migrations
    let clock = dependencies.clock
    let logger = dependencies.logger
    app.beforeServerStarts {
        for warning in try await store.checkDatabase() {
            logger.warning("\(warning)")
        }
        let applied = try await store.migrate(scope: migrations)
        if !applied.isEmpty { logger.info("migrated the database", metadata: ["versions": "\(applied)"]) }
        for app in apps {
            try await store.saveApp(AppRecord(id: app.id, bundleId: app.bundleId, createdAt: clock()))
        }
        try await directory.reloadWebhooks(store: store, now: clock())
        let stateKey = try await StateSigningKey.resolve(file: stateKeyFile, store: store, now: clock())
        stateKeyBox.set(stateKey)
        logger.info("customer states are signed", metadata: ["keyId": "\(stateKey.keyId)"])
        if let admin = initialAdmin, try await store.dashboardUser(email: admin.email) == nil {
            try await store.saveDashboardUser(
                DashboardUser(email: admin.email, passwordHash: admin.passwordHash, role: .admin, apps: nil, createdAt: clock(), updatedAt: clock()))
            logger.notice("created the dashboard's first admin from the configuration", metadata: ["user": "\(admin.email.lowercased())"])
        }
        logger.info("storekeeper ready", metadata: ["database": "\(store.backendName)", "apps": "\(apps.map(\.id))"])
        startup.open()
    }
    return (app, work)
}

extension TLSFiles {
    /// NIO's server configuration from the PEM files.
    func serverConfiguration() throws -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate)
            guard !chain.isEmpty else { throw ConfigurationError("tls.certificate \(certificate) holds no certificate") }
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("cannot read the TLS certificate \(certificate) or key \(key): \(error)")
        }
    }
}
