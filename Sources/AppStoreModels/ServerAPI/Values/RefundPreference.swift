/// Your preferred outcome for a refund request (Send Consumption Information V2).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RefundPreference: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Prefer that Apple declines the refund.
    public static let decline = RefundPreference(rawValue: "DECLINE")

    /// Prefer that Apple grants a full refund.
    public static let grantFull = RefundPreference(rawValue: "GRANT_FULL")

    /// Prefer that Apple grants a prorated refund.
    public static let grantProrated = RefundPreference(rawValue: "GRANT_PRORATED")

    public static let known: [RefundPreference] = [
        .decline, .grantFull, .grantProrated,
    ]
}
