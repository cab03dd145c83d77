/// Why a transaction exists (`transactionReason`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct TransactionReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The customer initiated the purchase (including an upgrade or offer).
    public static let purchase = TransactionReason(rawValue: "PURCHASE")

    /// The App Store renewed an auto-renewable subscription.
    public static let renewal = TransactionReason(rawValue: "RENEWAL")

    public static let known: [TransactionReason] = [
        .purchase, .renewal,
    ]
}
