extension TransactionHistoryRequest {
    /// The order of a transaction-history page by modification date (`sort` query parameter).
    ///
    /// An open set: values Apple adds later keep their raw value.
    public struct Order: AppStoreOpenValue {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Oldest first.
        public static let ascending = Order(rawValue: "ASCENDING")

        /// Newest first.
        public static let descending = Order(rawValue: "DESCENDING")

        public static let known: [Order] = [.ascending, .descending]
    }
}
