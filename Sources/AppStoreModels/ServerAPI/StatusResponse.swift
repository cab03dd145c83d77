/// The statuses of all of a customer's auto-renewable subscriptions (Get All Subscription Statuses).
public struct StatusResponse: Codable, Hashable, Sendable {
    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// One entry per subscription group.
    public var data: [SubscriptionGroupIdentifierItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        environment: AppStoreEnvironment? = nil,
        bundleId: String? = nil,
        appAppleId: Int64? = nil,
        data: [SubscriptionGroupIdentifierItem]? = nil
    ) {
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.data = data
    }
}
