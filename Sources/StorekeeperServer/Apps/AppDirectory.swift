import Foundation

/// The configured apps, and who an API key belongs to.
public struct AppDirectory: Sendable {
    public let apps: [String: AppRuntime]
    private let keys: [(key: String, appId: String, role: APIKeyConfiguration.Role)]

    public init(configuration: ServerConfiguration) throws {
        var apps: [String: AppRuntime] = [:]
        var keys: [(String, String, APIKeyConfiguration.Role)] = []
        for app in configuration.apps {
            apps[app.id] = try AppRuntime(configuration: app)
            keys += app.apiKeys.map { ($0.key, app.id, $0.role) }
        }
        self.apps = apps
        self.keys = keys
    }

    /// The app and role of a bearer key, comparing against every configured key in constant
    /// time (no early exit), or `nil` for an unknown key.
    func authenticate(_ presented: String) -> APIPrincipal? {
        var found: APIPrincipal?
        for entry in keys where ConstantTime.equals(entry.key, presented) {
            found = APIPrincipal(appId: entry.appId, role: entry.role, actor: KeyFingerprint.of(presented))
        }
        return found
    }
}

/// Who is calling: the app a key belongs to and its role.
public struct APIPrincipal: Sendable, Hashable {
    public var appId: String
    public var role: APIKeyConfiguration.Role
    /// The key's fingerprint, for the audit log.
    public var actor: String
}
