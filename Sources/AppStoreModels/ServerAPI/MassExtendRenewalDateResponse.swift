/// The response of Extend Subscription Renewal Dates for All Active Subscribers.
public struct MassExtendRenewalDateResponse: Codable, Hashable, Sendable {
    /// The identifier of the request, as you supplied it.
    public var requestIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(requestIdentifier: String? = nil) {
        self.requestIdentifier = requestIdentifier
    }
}
