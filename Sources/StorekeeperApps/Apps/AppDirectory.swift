import Foundation

/// The configured apps, and who an API key belongs to.
public struct AppDirectory: Sendable {
    public let apps: [String: AppRuntime]
    private let keys: [(key: String, appId: String, role: APIKeyConfiguration.Role)]
    /// The projects, and each app's project.
    public let projects: [String: ProjectConfiguration]
    package let projectOfApp: [String: String]

    public init(configuration: ServerConfiguration) throws {
        var apps: [String: AppRuntime] = [:]
        var keys: [(String, String, APIKeyConfiguration.Role)] = []
        for app in configuration.apps {
            apps[app.id] = try AppRuntime(configuration: app)
            keys += app.apiKeys.map { ($0.key, app.id, $0.role) }
        }
        self.apps = apps
        self.keys = keys
        projects = Dictionary(configuration.projects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        projectOfApp = Dictionary(
            configuration.projects.flatMap { project in project.apps.map { ($0, project.id) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The other apps of `appId`'s project.
    package func projectPeers(of appId: String) -> [AppRuntime] {
        guard let project = projectOfApp[appId].flatMap({ projects[$0] }) else { return [] }
        return project.apps.filter { $0 != appId }.compactMap { apps[$0] }
    }

    /// Who presents `credential` on a route of `appId` at `now`: an API key (compared with
    /// every configured key in constant time, no early exit) or a customer token of that app;
    /// `nil` for anything else.
    package func authenticate(_ credential: String, appId: String, now: Date) -> APIPrincipal? {
        if CustomerToken.looksLikeToken(credential) {
            guard let app = apps[appId], let key = app.customerTokenKey,
                let token = CustomerToken.verified(credential, key: key, now: now), token.appId == appId
            else { return nil }
            return APIPrincipal(appId: appId, role: nil, customerId: token.customerId, actor: "customer:" + KeyFingerprint.of(credential))
        }
        var found: APIPrincipal?
        for entry in keys where ConstantTime.equals(entry.key, credential) {
            found = APIPrincipal(appId: entry.appId, role: entry.role, customerId: nil, actor: KeyFingerprint.of(credential))
        }
        return found
    }
}

extension AppDirectory {
    /// The RevenueCat project id of `app`: its `revenueCat.projectId`, else its Storekeeper
    /// project's id, else the app's id.
    package func revenueCatProjectId(of app: AppConfiguration) -> String {
        app.revenueCat?.projectId ?? projectOfApp[app.id] ?? app.id
    }

    /// The apps a RevenueCat project id names (``revenueCatProjectId(of:)``), in id order.
    package func revenueCatProject(_ projectId: String) -> [AppRuntime] {
        apps.values.filter { revenueCatProjectId(of: $0.configuration) == projectId }.sorted { $0.id < $1.id }
    }

    /// The app whose public RevenueCat SDK key `credential` is (compared with every SDK key in
    /// constant time, no early exit); `nil` for anything else.
    package func revenueCatApp(sdkKey credential: String) -> AppRuntime? {
        var found: AppRuntime?
        for app in apps.values.sorted(by: { $0.id < $1.id }) {
            for key in app.configuration.revenueCat?.sdkKeys ?? [] where ConstantTime.equals(key, credential) { found = app }
        }
        return found
    }

    /// Who presents the RevenueCat v2 secret key `credential`: the app it is configured on and
    /// the Storekeeper role it stands for (constant time, no early exit); `nil` for anything else.
    package func revenueCatSecret(_ credential: String) -> APIPrincipal? {
        var found: APIPrincipal?
        for app in apps.values.sorted(by: { $0.id < $1.id }) {
            for key in app.configuration.revenueCat?.secretKeys ?? [] where ConstantTime.equals(key.key, credential) {
                found = APIPrincipal(appId: app.id, role: key.role, customerId: nil, actor: "revenuecat:" + KeyFingerprint.of(credential))
            }
        }
        return found
    }
}

/// Who is calling: the app a key or token belongs to, and what it may do.
public struct APIPrincipal: Sendable, Hashable {
    public var appId: String
    /// The key's role; `nil` for a customer token.
    public var role: APIKeyConfiguration.Role?
    /// For a customer token: the one customer it may act for.
    public var customerId: String?
    /// The credential's fingerprint, for the audit log.
    public var actor: String
}
