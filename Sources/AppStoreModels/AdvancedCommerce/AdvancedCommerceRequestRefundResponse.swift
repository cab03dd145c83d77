/// The response of the Advanced Commerce Request a Refund request: the updated signed data.
public struct AdvancedCommerceRequestRefundResponse: Codable, Hashable, Sendable {
    /// The updated renewal information, as a JWS.
    public var signedRenewalInfo: String?

    /// The resulting transaction, as a JWS.
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedRenewalInfo: String? = nil, signedTransactionInfo: String? = nil) {
        self.signedRenewalInfo = signedRenewalInfo
        self.signedTransactionInfo = signedTransactionInfo
    }
}
