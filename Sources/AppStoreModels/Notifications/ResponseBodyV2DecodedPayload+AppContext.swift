extension ResponseBodyV2DecodedPayload {
    /// The app and environment a notification concerns, wherever the payload carries them.
    public struct AppContext: Hashable, Sendable {
        /// The app's bundle identifier.
        public var bundleId: String?

        /// The app's Apple ID (absent in sandbox and local data).
        public var appAppleId: Int64?

        /// The environment the notification belongs to.
        public var environment: AppStoreEnvironment?

        /// Creates a context from its fields.
        public init(bundleId: String? = nil, appAppleId: Int64? = nil, environment: AppStoreEnvironment? = nil) {
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.environment = environment
        }
    }

    /// The app and environment of the notification, from the first section present in Apple's
    /// order: `data`, `summary`, `externalPurchaseToken` (environment implied by the token's
    /// identifier), `appData`. All fields are `nil` when none is present.
    ///
    /// This is what a verifier compares with its configured bundle ID, app Apple ID and environment.
    public var appContext: AppContext {
        if let data {
            return AppContext(bundleId: data.bundleId, appAppleId: data.appAppleId, environment: data.environment)
        }
        if let summary {
            return AppContext(bundleId: summary.bundleId, appAppleId: summary.appAppleId, environment: summary.environment)
        }
        if let externalPurchaseToken {
            return AppContext(
                bundleId: externalPurchaseToken.bundleId, appAppleId: externalPurchaseToken.appAppleId,
                environment: externalPurchaseToken.impliedEnvironment)
        }
        if let appData {
            return AppContext(bundleId: appData.bundleId, appAppleId: appData.appAppleId, environment: appData.environment)
        }
        return AppContext()
    }
}
