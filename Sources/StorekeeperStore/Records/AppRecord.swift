import Foundation

/// One app (a tenant): every other record is keyed by its ``id``.
public struct AppRecord: Sendable, Hashable, Codable {
    /// The operator's id of the app, as in the configuration and the API's paths.
    public var id: String
    /// The app's bundle id.
    public var bundleId: String
    /// When the store first saw the app.
    public var createdAt: Date

    public init(id: String, bundleId: String, createdAt: Date) {
        self.id = id
        self.bundleId = bundleId
        self.createdAt = createdAt
    }
}
