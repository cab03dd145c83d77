/// The body of Set App Account Token (API 1.16).
public struct UpdateAppAccountTokenRequest: Codable, Hashable, Sendable {
    /// The UUID to associate with the purchase, as a string.
    public var appAccountToken: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(appAccountToken: String) {
        self.appAccountToken = appAccountToken
    }
}

/// The body of Extend a Subscription Renewal Date.
public struct ExtendRenewalDateRequest: Codable, Hashable, Sendable {
    /// The number of days to extend the renewal date by (1 to 90).
    public var extendByDays: Int32?

    /// Why the renewal date is extended.
    public var extendReasonCode: ExtendReasonCode?

    /// Your unique identifier of the request (a UUID string), for idempotency.
    public var requestIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        extendByDays: Int32? = nil,
        extendReasonCode: ExtendReasonCode? = nil,
        requestIdentifier: String? = nil
    ) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}
