/// The billing period of an Advanced Commerce subscription, as an ISO 8601 duration.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommercePeriod: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// One week.
    public static let p1W = AdvancedCommercePeriod(rawValue: "P1W")

    /// One month.
    public static let p1M = AdvancedCommercePeriod(rawValue: "P1M")

    /// Two months.
    public static let p2M = AdvancedCommercePeriod(rawValue: "P2M")

    /// Three months.
    public static let p3M = AdvancedCommercePeriod(rawValue: "P3M")

    /// Six months.
    public static let p6M = AdvancedCommercePeriod(rawValue: "P6M")

    /// One year.
    public static let p1Y = AdvancedCommercePeriod(rawValue: "P1Y")

    public static let known: [AdvancedCommercePeriod] = [
        .p1W, .p1M, .p2M, .p3M, .p6M, .p1Y,
    ]
}
