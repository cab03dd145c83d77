/// Why the App Store refunded or revoked a transaction (`revocationReason`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RevocationReason: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Refunded for another reason, such as an accidental purchase.
    public static let refundedForOtherReason = RevocationReason(rawValue: 0)

    /// Refunded because of an actual or perceived issue in the app.
    public static let refundedDueToIssue = RevocationReason(rawValue: 1)

    public static let known: [RevocationReason] = [
        .refundedForOtherReason, .refundedDueToIssue,
    ]
}
