/// How a transaction was revoked (`revocationType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RevocationType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A full refund.
    public static let refundFull = RevocationType(rawValue: "REFUND_FULL")

    /// A prorated refund; see `revocationPercentage`.
    public static let refundProrated = RevocationType(rawValue: "REFUND_PRORATED")

    /// Family Sharing access was revoked.
    public static let familyRevoke = RevocationType(rawValue: "FAMILY_REVOKE")

    public static let known: [RevocationType] = [
        .refundFull, .refundProrated, .familyRevoke,
    ]
}
