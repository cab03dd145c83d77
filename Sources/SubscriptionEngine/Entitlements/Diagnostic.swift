/// Something the engine could not settle from the facts and catalog, reported instead of guessed.
public struct Diagnostic: Sendable, Hashable, Codable {
    /// A stable machine-readable code.
    public var code: Code
    /// The product concerned.
    public var productId: String?
    /// The transaction concerned.
    public var transactionId: String?
    /// A human explanation.
    public var message: String

    public init(code: Code, productId: String? = nil, transactionId: String? = nil, message: String) {
        self.code = code
        self.productId = productId
        self.transactionId = transactionId
        self.message = message
    }

    /// The kinds of gap the engine reports.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// Neither the source nor the catalog says what kind of product this is.
        case unknownProductType
        /// A non-renewing purchase whose duration neither the source nor the catalog gives.
        case missingDuration
        /// An auto-renewable subscription whose group neither the source nor the catalog gives.
        case unknownSubscriptionGroup
    }
}
