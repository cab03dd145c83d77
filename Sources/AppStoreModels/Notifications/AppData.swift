/// The app an app-level V2 notification concerns (`appData`, e.g. `RESCIND_CONSENT`).
public struct AppData: Codable, Hashable, Sendable {
    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// The app transaction, as a JWS (`AppTransaction`).
    public var signedAppTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        environment: AppStoreEnvironment? = nil,
        signedAppTransactionInfo: String? = nil
    ) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.environment = environment
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}
