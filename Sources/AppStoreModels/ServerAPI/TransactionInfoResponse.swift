/// The response of Get Transaction Info.
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    /// The transaction, as a JWS (`JWSTransactionDecodedPayload`).
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedTransactionInfo: String? = nil) {
        self.signedTransactionInfo = signedTransactionInfo
    }
}
