/// Identifies an Advanced Commerce request, and optionally the customer and the state it expects.
public struct AdvancedCommerceRequestInfo: Codable, Hashable, Sendable {
    /// Your unique identifier of the request (a UUID string).
    public var requestReferenceId: String

    /// The UUID of the customer's account in your app, as a string.
    public var appAccountToken: String?

    /// The `consistencyToken` from the latest renewal info, so Apple rejects the request if the subscription
    /// changed meanwhile.
    public var consistencyToken: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(requestReferenceId: String, appAccountToken: String? = nil, consistencyToken: String? = nil) {
        self.requestReferenceId = requestReferenceId
        self.appAccountToken = appAccountToken
        self.consistencyToken = consistencyToken
    }
}
