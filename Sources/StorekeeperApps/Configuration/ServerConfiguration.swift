import AppStoreModels
import Foundation
import StorekeeperStore
import Yams

/// Everything `storekeeper serve` needs: where to listen, where the data lives, and the apps.
///
/// Read from JSON or YAML (see ``load(file:environment:)``); every top-level setting can be
/// overridden from the environment. Secrets it holds never appear in its description.
public struct ServerConfiguration: Sendable, Codable, CustomStringConvertible {
    /// The address to listen on; loopback by default.
    public var host: String
    /// The TCP port; 0 picks a free one.
    public var port: Int
    /// Where the SQLite database lives when no database URL is given.
    public var dataDirectory: String
    /// `postgres://…` for PostgreSQL; `nil` for SQLite in ``dataDirectory``.
    public var databaseURL: String?
    /// `postgres://…` of a streaming standby of ``databaseURL``'s primary: reads whose answer
    /// may be a moment old (the dashboard's lists and figures, analytics, listings) go there
    /// while it is at most ``readMaximumLagSeconds`` behind; a customer's state is always read
    /// from the primary.
    public var readDatabaseURL: String?
    /// The most the standby of ``readDatabaseURL`` may lag and still serve reads (10 s).
    public var readMaximumLagSeconds: Double = 10
    /// The apps (tenants) this server serves.
    public var apps: [AppConfiguration]
    /// The largest request body accepted, in bytes.
    public var maximumBodySize: Int
    /// How the inbox worker runs.
    public var inbox: InboxConfiguration
    /// How long the tables that grow with every notification keep their rows.
    public var retention: RetentionConfiguration = RetentionConfiguration()
    /// Which missing schema steps the server applies at start: `all`, or `expandOnly` during a
    /// rolling deploy (the steps that remove wait for `storekeeper migrate` once every server
    /// runs this version).
    public var migrations: MigrationScope = .all
    /// `trace`…`critical`; `info` by default.
    public var logLevel: String?
    /// `text` (the default: lines on standard error) or `json` (one JSON object per line on
    /// standard output; docs/observability.md).
    public var logFormat: String?
    /// The largest body the public notification route reads, in bytes (Apple's bodies are a
    /// few kilobytes; V1 bodies carry a receipt).
    public var maximumNotificationBodySize: Int
    /// Limits on client connections.
    public var connections: ConnectionLimits
    /// The dashboard's sessions and its first admin.
    public var dashboard: DashboardConfiguration
    /// Serve HTTPS with this certificate and key instead of plain HTTP.
    public var tls: TLSFiles?
    /// A PEM file with the P-256 private key that signs customer-state answers for the SDK's
    /// offline cache; `nil` makes one once and keeps it in the database (shared by replicas).
    public var stateSigningKey: String?
    /// Groups of apps of one developer whose customers' entitlements are shared.
    public var projects: [ProjectConfiguration] = []
    /// How long the SDK may serve a signed customer state while the server cannot be reached,
    /// in seconds from its signing: signed into every state as `offlineUntil`, so nothing on
    /// the device can lengthen it (10 days by default; an app's own shorter window still holds).
    public var offlineWindowSeconds: Double = 10 * 86_400
    /// Where RevenueCat's routes are served: the SDK's `proxyURL` and v2 backends point at
    /// `https://host/<prefix>` (default `revenuecat`: `/revenuecat/v1/subscribers/…`).
    public var revenueCatPathPrefix: String = "revenuecat"

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = "storekeeper-data", databaseURL: String? = nil,
        apps: [AppConfiguration] = [], maximumBodySize: Int = 1 << 20, inbox: InboxConfiguration = InboxConfiguration(),
        logLevel: String? = nil, maximumNotificationBodySize: Int = 256 * 1024, connections: ConnectionLimits = ConnectionLimits(),
        dashboard: DashboardConfiguration = DashboardConfiguration()
    ) {
        self.dashboard = dashboard
        self.maximumNotificationBodySize = maximumNotificationBodySize
        self.connections = connections
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.apps = apps
        self.maximumBodySize = maximumBodySize
        self.inbox = inbox
        self.logLevel = logLevel
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ServerConfiguration()
        host = try container.decodeIfPresent(String.self, forKey: .host) ?? defaults.host
        port = try container.decodeIfPresent(Int.self, forKey: .port) ?? defaults.port
        dataDirectory = try container.decodeIfPresent(String.self, forKey: .dataDirectory) ?? defaults.dataDirectory
        databaseURL = try container.decodeIfPresent(String.self, forKey: .databaseURL)
        readDatabaseURL = try container.decodeIfPresent(String.self, forKey: .readDatabaseURL)
        readMaximumLagSeconds = try container.decodeIfPresent(Double.self, forKey: .readMaximumLagSeconds) ?? defaults.readMaximumLagSeconds
        apps = try container.decodeIfPresent([AppConfiguration].self, forKey: .apps) ?? []
        maximumBodySize = try container.decodeIfPresent(Int.self, forKey: .maximumBodySize) ?? defaults.maximumBodySize
        inbox = try container.decodeIfPresent(InboxConfiguration.self, forKey: .inbox) ?? defaults.inbox
        retention = try container.decodeIfPresent(RetentionConfiguration.self, forKey: .retention) ?? defaults.retention
        migrations = try container.decodeIfPresent(MigrationScope.self, forKey: .migrations) ?? defaults.migrations
        logLevel = try container.decodeIfPresent(String.self, forKey: .logLevel)
        logFormat = try container.decodeIfPresent(String.self, forKey: .logFormat)
        maximumNotificationBodySize =
            try container.decodeIfPresent(Int.self, forKey: .maximumNotificationBodySize)
            ?? defaults.maximumNotificationBodySize
        connections = try container.decodeIfPresent(ConnectionLimits.self, forKey: .connections) ?? defaults.connections
        dashboard = try container.decodeIfPresent(DashboardConfiguration.self, forKey: .dashboard) ?? defaults.dashboard
        tls = try container.decodeIfPresent(TLSFiles.self, forKey: .tls)
        stateSigningKey = try container.decodeIfPresent(String.self, forKey: .stateSigningKey)
        projects = try container.decodeIfPresent([ProjectConfiguration].self, forKey: .projects) ?? []
        offlineWindowSeconds = try container.decodeIfPresent(Double.self, forKey: .offlineWindowSeconds) ?? defaults.offlineWindowSeconds
        revenueCatPathPrefix = try container.decodeIfPresent(String.self, forKey: .revenueCatPathPrefix) ?? defaults.revenueCatPathPrefix
    }

    public var description: String {
        let database = databaseURL == nil ? "sqlite in \(dataDirectory)" : "postgresql"
        return "listen \(host):\(port), \(database), apps [\(apps.map(\.id).joined(separator: ", "))]"
    }

    /// Reads a configuration file, JSON or (when its name ends in `.yaml` or `.yml`) YAML of
    /// the same shape, resolving `trustedRoots` paths against the file's
    /// folder, then applies the environment's overrides.
    public static func load(file: String?, environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let file {
            let url = URL(fileURLWithPath: file)
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw ConfigurationError("cannot read the configuration file \(file)")
            }
            do {
                configuration = try decode(data, yaml: ["yaml", "yml"].contains(url.pathExtension.lowercased()))
            } catch {
                throw ConfigurationError("the configuration file \(file) is not valid: \(ConfigurationError.describe(error))")
            }
            let base = url.deletingLastPathComponent()
            for index in configuration.apps.indices {
                configuration.apps[index].trustedRoots = configuration.apps[index].trustedRoots.map { path in
                    path.hasPrefix("/") ? path : base.appendingPathComponent(path).path
                }
            }
        } else if let inline = environment["STOREKEEPER_CONFIG_JSON"], !inline.isEmpty {
            do {
                configuration = try JSONDecoder().decode(ServerConfiguration.self, from: Data(inline.utf8))
            } catch {
                throw ConfigurationError("STOREKEEPER_CONFIG_JSON is not valid: \(ConfigurationError.describe(error))")
            }
        }
        try configuration.applyEnvironment(environment)
        try configuration.validate()
        return configuration
    }

    /// Decodes a configuration document: YAML through Yams, otherwise JSON.
    package static func decode(_ data: Data, yaml: Bool) throws -> ServerConfiguration {
        guard yaml else { return try JSONDecoder().decode(ServerConfiguration.self, from: data) }
        return try YAMLDecoder().decode(ServerConfiguration.self, from: data)
    }

    /// Applies `STOREKEEPER_HOST`, `_PORT`, `_DATA_DIR`, `_DATABASE_URL`, `_LOG_LEVEL`,
    /// `_MAX_BODY_BYTES`, and per app `STOREKEEPER_APP_<ID>_SHARED_SECRET` and
    /// `STOREKEEPER_APP_<ID>_API_KEY` / `_ADMIN_KEY` (the id upper-cased, other characters as `_`).
    public mutating func applyEnvironment(_ environment: [String: String]) throws {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        if let host = value("STOREKEEPER_HOST") { self.host = host }
        if let port = value("STOREKEEPER_PORT") {
            guard let number = Int(port) else { throw ConfigurationError("STOREKEEPER_PORT must be a number") }
            self.port = number
        }
        if let directory = value("STOREKEEPER_DATA_DIR") { dataDirectory = directory }
        if let url = value("STOREKEEPER_DATABASE_URL") { databaseURL = url }
        if let url = value("STOREKEEPER_READ_DATABASE_URL") { readDatabaseURL = url }
        if let level = value("STOREKEEPER_LOG_LEVEL") { logLevel = level }
        if let format = value("STOREKEEPER_LOG_FORMAT") { logFormat = format }
        if let path = value("STOREKEEPER_STATE_SIGNING_KEY") { stateSigningKey = path }
        if let certificate = value("STOREKEEPER_TLS_CERTIFICATE"), let key = value("STOREKEEPER_TLS_KEY") {
            tls = TLSFiles(certificate: certificate, key: key)
        }
        if let size = value("STOREKEEPER_MAX_BODY_BYTES") {
            guard let number = Int(size) else { throw ConfigurationError("STOREKEEPER_MAX_BODY_BYTES must be a number") }
            maximumBodySize = number
        }
        for index in apps.indices {
            let prefix = "STOREKEEPER_APP_" + String(apps[index].id.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }) + "_"
            if let secret = value(prefix + "SHARED_SECRET") { apps[index].sharedSecret = secret }
            if let key = value(prefix + "API_KEY") { apps[index].apiKeys.append(APIKeyConfiguration(key: key, role: .app)) }
            if let key = value(prefix + "ADMIN_KEY") { apps[index].apiKeys.append(APIKeyConfiguration(key: key, role: .admin)) }
            if let secret = value(prefix + "CUSTOMER_TOKEN_SECRET") { apps[index].customerTokenSecret = secret }
        }
    }

    /// Rejects configurations the server cannot run with.
    public func validate() throws {
        guard (0...65535).contains(port) else { throw ConfigurationError("port must be between 0 and 65535") }
        guard maximumBodySize >= 1024 else { throw ConfigurationError("maximumBodySize must be at least 1024 bytes") }
        guard maximumNotificationBodySize >= 1024 else { throw ConfigurationError("maximumNotificationBodySize must be at least 1024 bytes") }
        try connections.validate()
        try inbox.validate()
        try retention.validate()
        if readDatabaseURL != nil {
            guard let databaseURL, databaseURL.hasPrefix("postgres") else {
                throw ConfigurationError("readDatabaseURL names a PostgreSQL standby: it needs a postgres:// databaseURL for the primary")
            }
            guard readDatabaseURL?.hasPrefix("postgres") == true else {
                throw ConfigurationError("readDatabaseURL must be a postgres:// URL")
            }
        }
        guard readMaximumLagSeconds > 0, readMaximumLagSeconds <= 3600 else {
            throw ConfigurationError("readMaximumLagSeconds must be more than 0 and at most 3600")
        }
        guard (0...(366 * 86_400)).contains(offlineWindowSeconds) else {
            throw ConfigurationError("offlineWindowSeconds must be 0 to 31622400 (366 days)")
        }
        let prefixParts = revenueCatPathPrefix.split(separator: "/", omittingEmptySubsequences: true)
        guard !prefixParts.isEmpty, prefixParts.allSatisfy({ $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) } }),
            !["v1", "health", "metrics", "dashboard", "openapi.json", "verifyReceipt"].contains(String(prefixParts[0]))
        else {
            throw ConfigurationError(
                "revenueCatPathPrefix must be path segments of letters, digits, '-', '_' or '.', not one of the server's own routes")
        }
        var inProject: [String: String] = [:]
        for project in projects {
            guard !project.id.isEmpty, project.id.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw ConfigurationError("project id '\(project.id)' must be letters, digits, '-', '_' or '.'")
            }
            guard project.apps.count >= 2 else { throw ConfigurationError("project \(project.id) needs at least two apps") }
            for app in project.apps {
                guard apps.contains(where: { $0.id == app }) else { throw ConfigurationError("project \(project.id): no app \(app)") }
                if let other = inProject.updateValue(project.id, forKey: app) {
                    throw ConfigurationError("app \(app) is in projects \(other) and \(project.id)")
                }
            }
        }
        guard Set(projects.map(\.id)).count == projects.count else { throw ConfigurationError("a project id appears twice") }
        var seen = Set<String>()
        for app in apps {
            guard !app.id.isEmpty, app.id.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw ConfigurationError("app id '\(app.id)' must be letters, digits, '-', '_' or '.'")
            }
            guard seen.insert(app.id).inserted else { throw ConfigurationError("app id '\(app.id)' appears twice") }
            guard !app.bundleId.isEmpty else { throw ConfigurationError("app \(app.id) has no bundleId") }
            for environment in app.environments where !environment.isKnown {
                throw ConfigurationError("app \(app.id): unknown environment '\(environment)'")
            }
            let unsigned = app.environments.filter { !$0.isSigned }.map(\.rawValue)
            let signed = app.environments.filter(\.isSigned).map(\.rawValue)
            if !unsigned.isEmpty, !signed.isEmpty, app.allowUnsignedTestData != true {
                throw ConfigurationError(
                    "app \(app.id): \(unsigned.joined(separator: ", ")) data is not signed, so accepting it beside "
                        + "\(signed.joined(separator: ", ")) lets anyone forge purchases; use a separate app for local testing, "
                        + "or set allowUnsignedTestData: true")
            }
            if app.environments.contains(.production), app.appAppleId == nil {
                throw ConfigurationError("app \(app.id): appAppleId is required for the Production environment")
            }
            if let secret = app.customerTokenSecret, secret.utf8.count < 32 {
                throw ConfigurationError("app \(app.id): customerTokenSecret must be at least 32 characters")
            }
            if let problem = app.analytics.problem { throw ConfigurationError("app \(app.id): analytics: \(problem)") }
            for webhook in app.webhooks {
                if let problem = webhook.problem(allowsPrivateNetworks: app.allowPrivateNetworks == true) {
                    throw ConfigurationError("app \(app.id): \(problem)")
                }
            }
            if let problem = app.revenueCat?.problem { throw ConfigurationError("app \(app.id): \(problem)") }
            if let forwarding = app.notificationForwarding, let problem = forwarding.problem(allowsPrivateNetworks: app.allowPrivateNetworks == true)
            {
                throw ConfigurationError("app \(app.id): notificationForwarding: \(problem)")
            }
            guard Set(app.webhooks.map(\.id)).count == app.webhooks.count else {
                throw ConfigurationError("app \(app.id): a webhook id appears twice")
            }
            for key in app.apiKeys where key.key.hasPrefix(CustomerToken.prefix) {
                throw ConfigurationError("app \(app.id): API keys may not start with \(CustomerToken.prefix) (customer tokens do)")
            }
            for key in app.apiKeys where key.key.utf8.count < 16 {
                throw ConfigurationError("app \(app.id): API keys must be at least 16 characters")
            }
        }
        let keys = apps.flatMap { app in app.apiKeys.map(\.key) + (app.revenueCat.map { $0.sdkKeys + $0.secretKeys.map(\.key) } ?? []) }
        guard Set(keys).count == keys.count else { throw ConfigurationError("an API key (or a revenueCat key) is configured twice") }
    }
}

/// How the inbox worker processes notifications.
public struct InboxConfiguration: Sendable, Codable, Hashable {
    /// How often the worker looks for work when nothing wakes it, in seconds.
    public var pollIntervalSeconds: Double
    /// How long a worker holds a notification before another may take it, in seconds.
    public var leaseSeconds: Double
    /// How many notifications a worker takes at once.
    public var batchSize: Int
    /// After a batch that was not full, how long the worker lets notifications gather before it
    /// takes the next (it takes it at once when the batch was full), in milliseconds.
    public var gatherMilliseconds: Int
    /// While notifications arrive in a burst (two within this many milliseconds), the worker
    /// waits for them to pause this long before it takes its next batch: the door's commits
    /// go first (0: never waits). `nil`: 20 on SQLite, 0 on PostgreSQL (see
    /// ``burstQuiet(backend:)``).
    public var burstQuietMilliseconds: Int?
    /// The longest a notification waits for processing because of a burst after it, in
    /// milliseconds.
    public var burstLimitMilliseconds: Int

    /// How many times a row is tried before it is marked failed.
    public var maximumAttempts: Int
    /// How long rejected and duplicate rows are kept, in days.
    public var retentionDays: Double

    public init(
        pollIntervalSeconds: Double = 1, leaseSeconds: Double = 30, batchSize: Int = 128, gatherMilliseconds: Int = 4,
        burstQuietMilliseconds: Int? = nil, burstLimitMilliseconds: Int = 2000, maximumAttempts: Int = 5, retentionDays: Double = 30
    ) {
        self.pollIntervalSeconds = pollIntervalSeconds
        self.leaseSeconds = leaseSeconds
        self.batchSize = batchSize
        self.gatherMilliseconds = gatherMilliseconds
        self.burstQuietMilliseconds = burstQuietMilliseconds
        self.burstLimitMilliseconds = burstLimitMilliseconds
        self.maximumAttempts = maximumAttempts
        self.retentionDays = retentionDays
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = InboxConfiguration()
        pollIntervalSeconds = try container.decodeIfPresent(Double.self, forKey: .pollIntervalSeconds) ?? defaults.pollIntervalSeconds
        leaseSeconds = try container.decodeIfPresent(Double.self, forKey: .leaseSeconds) ?? defaults.leaseSeconds
        batchSize = try container.decodeIfPresent(Int.self, forKey: .batchSize) ?? defaults.batchSize
        gatherMilliseconds = try container.decodeIfPresent(Int.self, forKey: .gatherMilliseconds) ?? defaults.gatherMilliseconds
        burstQuietMilliseconds = try container.decodeIfPresent(Int.self, forKey: .burstQuietMilliseconds)
        burstLimitMilliseconds = try container.decodeIfPresent(Int.self, forKey: .burstLimitMilliseconds) ?? defaults.burstLimitMilliseconds
        maximumAttempts = try container.decodeIfPresent(Int.self, forKey: .maximumAttempts) ?? defaults.maximumAttempts
        retentionDays = try container.decodeIfPresent(Double.self, forKey: .retentionDays) ?? defaults.retentionDays
    }

    /// The quiet time a burst must leave before processing goes on, on the store named
    /// `backend`. On SQLite the door's commit waits for the writer, whose every transaction
    /// processing also needs, and the door alone keeps the two cores busy: the door first
    /// doubles the rate a burst is acknowledged at. On PostgreSQL the door's commits do not
    /// queue behind processing's, and holding processing back left the cores idle while the
    /// door waited on the server: processing slowed by a sixth for it, so it is off by default.
    public func burstQuiet(backend: String) -> Duration {
        .milliseconds(burstQuietMilliseconds ?? (backend == "sqlite" ? 20 : 0))
    }

    package func validate() throws {
        guard pollIntervalSeconds > 0, leaseSeconds > 0, (1...1000).contains(batchSize) else {
            throw ConfigurationError("inbox: pollIntervalSeconds and leaseSeconds must be positive, batchSize 1 to 1000")
        }
        guard (1...100).contains(maximumAttempts) else { throw ConfigurationError("inbox.maximumAttempts must be 1 to 100") }
        guard (0...1000).contains(gatherMilliseconds) else { throw ConfigurationError("inbox.gatherMilliseconds must be 0 to 1000") }
        guard (0...1000).contains(burstQuietMilliseconds ?? 0), (0...60_000).contains(burstLimitMilliseconds) else {
            throw ConfigurationError("inbox.burstQuietMilliseconds must be 0 to 1000, inbox.burstLimitMilliseconds 0 to 60000")
        }
        guard (1...36_500).contains(retentionDays) else { throw ConfigurationError("inbox.retentionDays must be 1 to 36500") }
    }
}

/// How long each table that grows with every notification keeps its rows, in days (`nil`:
/// for good). The ledger, customers and figures are always kept; rejected and duplicate inbox
/// rows follow ``InboxConfiguration/retentionDays``. docs/server.md gives the disk each costs.
public struct RetentionConfiguration: Sendable, Codable, Hashable {
    /// Customer events (the customer's timeline, what integrations were sent), by when they
    /// occurred, with their deliveries: 400 days, a year and its comparison month.
    public var eventsDays: Double?
    /// Delivered deliveries, by when they were made (dead ones stay with their event): 30.
    public var deliveriesDays: Double?
    /// Delivery attempts: 30.
    public var deliveryAttemptsDays: Double?
    /// The bodies of processed notifications (their rows stay; what Apple signed is in the
    /// ledger): 90.
    public var inboxBodiesDays: Double?
    /// Operators' audit entries: 730.
    public var auditDays: Double?

    public init(
        eventsDays: Double? = 400, deliveriesDays: Double? = 30, deliveryAttemptsDays: Double? = 30, inboxBodiesDays: Double? = 90,
        auditDays: Double? = 730
    ) {
        self.eventsDays = eventsDays
        self.deliveriesDays = deliveriesDays
        self.deliveryAttemptsDays = deliveryAttemptsDays
        self.inboxBodiesDays = inboxBodiesDays
        self.auditDays = auditDays
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = RetentionConfiguration()
        // A key given as null keeps that table's rows for good; a key left out takes the default.
        func days(_ key: CodingKeys, _ fallback: Double?) throws -> Double? {
            container.contains(key) ? try container.decodeIfPresent(Double.self, forKey: key) : fallback
        }
        eventsDays = try days(.eventsDays, defaults.eventsDays)
        deliveriesDays = try days(.deliveriesDays, defaults.deliveriesDays)
        deliveryAttemptsDays = try days(.deliveryAttemptsDays, defaults.deliveryAttemptsDays)
        inboxBodiesDays = try days(.inboxBodiesDays, defaults.inboxBodiesDays)
        auditDays = try days(.auditDays, defaults.auditDays)
    }

    package func validate() throws {
        let settings = [
            ("eventsDays", eventsDays), ("deliveriesDays", deliveriesDays), ("deliveryAttemptsDays", deliveryAttemptsDays),
            ("inboxBodiesDays", inboxBodiesDays), ("auditDays", auditDays),
        ]
        for case (let name, let value?) in settings where !(1...36_500).contains(value) {
            throw ConfigurationError("retention.\(name) must be 1 to 36500 (days), or null to keep rows for good")
        }
    }
}

/// A configuration the server cannot run with.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    package static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "unreadable" }
        switch decoding {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "unreadable"
        }
    }
}

/// The PEM files of a TLS server: the certificate chain (leaf first) and its private key.
public struct TLSFiles: Sendable, Codable, Hashable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// Apps of one developer whose customers share entitlements: a customer known to two of them
/// (the same customer id, or the same app account token) who subscribes in one is entitled in
/// the others. Each subscription's state is still decided in its own app; API keys stay per app.
public struct ProjectConfiguration: Sendable, Codable, Hashable {
    public var id: String
    public var apps: [String]

    public init(id: String, apps: [String]) {
        self.id = id
        self.apps = apps
    }
}
