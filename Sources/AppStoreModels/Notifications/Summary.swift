/// The outcome of a request to extend renewal dates for all active subscribers
/// (`RENEWAL_EXTENSION` notification, subtype `SUMMARY`).
public struct Summary: Codable, Hashable, Sendable {
    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The subscription product whose renewal dates were extended.
    public var productId: String?

    /// The identifier the developer gave the extension request.
    public var requestIdentifier: String?

    /// The storefronts the extension applied to (ISO 3166-1 alpha-3).
    public var storefrontCountryCodes: [String]?

    /// The number of subscriptions successfully extended.
    public var succeededCount: Int64?

    /// The number of subscriptions that could not be extended.
    public var failedCount: Int64?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        environment: AppStoreEnvironment? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        productId: String? = nil,
        requestIdentifier: String? = nil,
        storefrontCountryCodes: [String]? = nil,
        succeededCount: Int64? = nil,
        failedCount: Int64? = nil
    ) {
        self.environment = environment
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.productId = productId
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
