/// How much of a purchase the customer consumed (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ConsumptionStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = ConsumptionStatus(rawValue: 0)

    /// Not consumed.
    public static let notConsumed = ConsumptionStatus(rawValue: 1)

    /// Partially consumed.
    public static let partiallyConsumed = ConsumptionStatus(rawValue: 2)

    /// Fully consumed.
    public static let fullyConsumed = ConsumptionStatus(rawValue: 3)

    public static let known: [ConsumptionStatus] = [
        .undeclared, .notConsumed, .partiallyConsumed, .fullyConsumed,
    ]
}
