/// The app and signed data a V2 notification concerns (`data`).
public struct NotificationData: Codable, Hashable, Sendable {
    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The app's build version (`CFBundleVersion`).
    public var bundleVersion: String?

    /// The transaction, as a JWS (`JWSTransactionDecodedPayload`).
    public var signedTransactionInfo: String?

    /// The subscription renewal information, as a JWS (`JWSRenewalInfoDecodedPayload`).
    public var signedRenewalInfo: String?

    /// The status of the subscription, for subscription notifications.
    public var status: Status?

    /// Why the customer asked for a refund (`CONSUMPTION_REQUEST` only).
    public var consumptionRequestReason: ConsumptionRequestReason?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        environment: AppStoreEnvironment? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        bundleVersion: String? = nil,
        signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil,
        status: Status? = nil,
        consumptionRequestReason: ConsumptionRequestReason? = nil
    ) {
        self.environment = environment
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
        self.consumptionRequestReason = consumptionRequestReason
    }
}
