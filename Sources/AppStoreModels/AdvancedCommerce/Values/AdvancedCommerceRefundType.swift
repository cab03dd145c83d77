/// How much of an Advanced Commerce purchase is refunded.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceRefundType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The full amount.
    public static let full = AdvancedCommerceRefundType(rawValue: "FULL")

    /// A prorated amount.
    public static let prorated = AdvancedCommerceRefundType(rawValue: "PRORATED")

    /// A custom amount given in `refundAmount`.
    public static let custom = AdvancedCommerceRefundType(rawValue: "CUSTOM")

    public static let known: [AdvancedCommerceRefundType] = [
        .full, .prorated, .custom,
    ]
}
