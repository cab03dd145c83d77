import AppStoreServerAPI
import Foundation
import StorekeeperApps

/// The App Store Server API client of each app that has credentials, sharing one process-wide
/// ``RateBudget`` so that every job and route of the process stays inside Apple's limits.
public struct AppleClients: Sendable {
    private let clients: [String: any AppStoreServerAPIClientProtocol]

    /// Clients by app id (tests pass fakes).
    public init(_ clients: [String: any AppStoreServerAPIClientProtocol] = [:]) {
        self.clients = clients
    }

    /// Live clients for every configured app with ``AppConfiguration/appStoreServerAPI``; with
    /// `metrics`, Apple's answers are counted there by status (``MeteredTransport``).
    public static func live(
        configuration: ServerConfiguration, rateBudget: RateBudget = RateBudget(),
        transport: any HTTPTransport = AsyncHTTPClientTransport(), metrics: ServerMetrics? = nil
    ) throws -> AppleClients {
        let transport = metrics.map { MeteredTransport(base: transport, metrics: $0) } ?? transport
        var clients: [String: any AppStoreServerAPIClientProtocol] = [:]
        for app in configuration.apps {
            guard let settings = app.appStoreServerAPI else { continue }
            let client = try settings.clientConfiguration(app: app.id, bundleId: app.bundleId)
            clients[app.id] = AppStoreServerAPIClient(configuration: client, transport: transport, rateBudget: rateBudget)
        }
        return AppleClients(clients)
    }

    /// The app's client, or `nil` when the app has no credentials.
    public func client(for appId: String) -> (any AppStoreServerAPIClientProtocol)? {
        clients[appId]
    }

    /// The apps that have a client, sorted.
    public var appIds: [String] { clients.keys.sorted() }
}
