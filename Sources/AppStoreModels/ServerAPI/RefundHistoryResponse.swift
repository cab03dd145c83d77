/// A page of a customer's refunded transactions (Get Refund History, v2).
public struct RefundHistoryResponse: Codable, Hashable, Sendable {
    /// Transactions, each as a JWS (`JWSTransactionDecodedPayload`).
    public var signedTransactions: [String]?

    /// The token to pass as `revision` to fetch the next page.
    public var revision: String?

    /// Whether more pages are available.
    public var hasMore: Bool?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedTransactions: [String]? = nil, revision: String? = nil, hasMore: Bool? = nil) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }
}
