/// The body of Extend Subscription Renewal Dates for All Active Subscribers.
public struct MassExtendRenewalDateRequest: Codable, Hashable, Sendable {
    /// The number of days to extend the renewal date by (1 to 90).
    public var extendByDays: Int32?

    /// Why the renewal date is extended.
    public var extendReasonCode: ExtendReasonCode?

    /// Your unique identifier of the request (a UUID string); use it to query the status.
    public var requestIdentifier: String?

    /// Only subscribers in these storefronts (ISO 3166-1 alpha-3); all when absent.
    public var storefrontCountryCodes: [String]?

    /// The subscription product to extend.
    public var productId: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        extendByDays: Int32? = nil,
        extendReasonCode: ExtendReasonCode? = nil,
        requestIdentifier: String? = nil,
        storefrontCountryCodes: [String]? = nil,
        productId: String? = nil
    ) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.productId = productId
    }
}
