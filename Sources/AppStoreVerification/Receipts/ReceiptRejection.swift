/// Why ``ReceiptPreFilter`` turned a receipt away before any call to Apple.
public struct ReceiptRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of rejection, stable for metrics and alerts.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let name: String

        /// Empty input.
        public static let empty = Reason(name: "empty")
        /// Not a receipt at all: text, JSON, or base64 of a bare product id (cracker receipts, seed 004).
        public static let notAReceipt = Reason(name: "notAReceipt")
        /// Looks like a receipt container but cannot be read.
        public static let malformed = Reason(name: "malformed")
        /// A genuine-looking receipt of another app (79% of bad requests in seed 004).
        public static let wrongBundleId = Reason(name: "wrongBundleId")
        /// A purchase of a product this app does not sell.
        public static let unknownProduct = Reason(name: "unknownProduct")

        public var description: String { name }
    }

    public var reason: Reason
    /// Human detail: what was found.
    public var detail: String

    public init(reason: Reason, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason): \(detail)" }
}
