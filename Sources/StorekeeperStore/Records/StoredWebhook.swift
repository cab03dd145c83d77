import Foundation

/// A webhook added through the admin API (beside those in the configuration): where the app's
/// events go and the secrets that sign them. The secrets are kept as given: the server needs
/// them to sign; no API answer shows them.
public struct StoredWebhook: Sendable, Hashable {
    public var appId: String
    public var id: String
    public var url: String
    public var secrets: [String]
    /// `nil` for every type.
    public var events: [String]?
    /// `nil` for both environments.
    public var environments: [String]?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        appId: String, id: String, url: String, secrets: [String], events: [String]?, environments: [String]?, createdAt: Date, updatedAt: Date
    ) {
        self.appId = appId
        self.id = id
        self.url = url
        self.secrets = secrets
        self.events = events
        self.environments = environments
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
