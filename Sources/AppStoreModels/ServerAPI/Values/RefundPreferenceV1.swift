/// Your preferred outcome for a refund request (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RefundPreferenceV1: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = RefundPreferenceV1(rawValue: 0)

    /// Prefer granting the refund.
    public static let preferGrant = RefundPreferenceV1(rawValue: 1)

    /// Prefer declining the refund.
    public static let preferDecline = RefundPreferenceV1(rawValue: 2)

    /// No preference.
    public static let noPreference = RefundPreferenceV1(rawValue: 3)

    public static let known: [RefundPreferenceV1] = [
        .undeclared, .preferGrant, .preferDecline, .noPreference,
    ]
}
