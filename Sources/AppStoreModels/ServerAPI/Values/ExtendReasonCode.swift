/// Why a subscription's renewal date is extended.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ExtendReasonCode: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// No reason given.
    public static let undeclared = ExtendReasonCode(rawValue: 0)

    /// For customer satisfaction.
    public static let customerSatisfaction = ExtendReasonCode(rawValue: 1)

    /// Another reason.
    public static let other = ExtendReasonCode(rawValue: 2)

    /// To compensate for a service issue or outage.
    public static let serviceIssueOrOutage = ExtendReasonCode(rawValue: 3)

    public static let known: [ExtendReasonCode] = [
        .undeclared, .customerSatisfaction, .other, .serviceIssueOrOutage,
    ]
}
