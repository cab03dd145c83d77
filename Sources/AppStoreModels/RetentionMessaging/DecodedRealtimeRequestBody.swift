import Foundation

/// A Retention Messaging real-time request as the App Store signs it: the payload of
/// `RealtimeRequestBody.signedPayload`, sent when a customer opens the cancellation screen.
public struct DecodedRealtimeRequestBody: Codable, Hashable, Sendable {
    /// The original transaction identifier of the subscription being cancelled.
    public var originalTransactionId: String?

    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// The subscription product the customer is viewing.
    public var productId: String?

    /// The customer's locale, e.g. `en-US`.
    public var userLocale: String?

    /// The identifier of this request (a UUID string).
    public var requestIdentifier: String?

    /// When the App Store signed this data.
    @AppStoreDate public var signedDate: Date?

    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        originalTransactionId: String? = nil,
        appAppleId: Int64? = nil,
        productId: String? = nil,
        userLocale: String? = nil,
        requestIdentifier: String? = nil,
        signedDate: Date? = nil,
        environment: AppStoreEnvironment? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.appAppleId = appAppleId
        self.productId = productId
        self.userLocale = userLocale
        self.requestIdentifier = requestIdentifier
        self.signedDate = signedDate
        self.environment = environment
    }
}
