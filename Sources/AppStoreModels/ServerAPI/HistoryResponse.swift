/// A page of a customer's transactions (Get Transaction History, v1 and v2).
public struct HistoryResponse: Codable, Hashable, Sendable {
    /// The token to pass as `revision` to fetch the next page.
    public var revision: String?

    /// Whether more pages are available.
    public var hasMore: Bool?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// The server environment the data belongs to.
    public var environment: AppStoreEnvironment?

    /// Transactions, each as a JWS (`JWSTransactionDecodedPayload`).
    public var signedTransactions: [String]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        revision: String? = nil,
        hasMore: Bool? = nil,
        bundleId: String? = nil,
        appAppleId: Int64? = nil,
        environment: AppStoreEnvironment? = nil,
        signedTransactions: [String]? = nil
    ) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signedTransactions = signedTransactions
    }
}
