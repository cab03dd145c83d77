/// The status and latest signed data of one subscription (in a `StatusResponse`).
public struct LastTransactionsItem: Codable, Hashable, Sendable {
    /// The status of the subscription.
    public var status: Status?

    /// The transaction identifier of the original purchase; stable across renewals, restores and upgrades
    /// within a subscription group.
    public var originalTransactionId: String?

    /// The transaction, as a JWS (`JWSTransactionDecodedPayload`).
    public var signedTransactionInfo: String?

    /// The subscription renewal information, as a JWS (`JWSRenewalInfoDecodedPayload`).
    public var signedRenewalInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        status: Status? = nil,
        originalTransactionId: String? = nil,
        signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil
    ) {
        self.status = status
        self.originalTransactionId = originalTransactionId
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }
}
