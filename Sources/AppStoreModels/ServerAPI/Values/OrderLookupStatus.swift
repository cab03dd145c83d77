/// Whether a customer's order ID is valid (Look Up Order ID).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct OrderLookupStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The order ID is valid.
    public static let valid = OrderLookupStatus(rawValue: 0)

    /// The order ID is invalid.
    public static let invalid = OrderLookupStatus(rawValue: 1)

    public static let known: [OrderLookupStatus] = [
        .valid, .invalid,
    ]
}
