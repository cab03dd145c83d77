/// When an Advanced Commerce change takes effect.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceEffective: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Right away.
    public static let immediately = AdvancedCommerceEffective(rawValue: "IMMEDIATELY")

    /// At the next billing cycle.
    public static let nextBillCycle = AdvancedCommerceEffective(rawValue: "NEXT_BILL_CYCLE")

    public static let known: [AdvancedCommerceEffective] = [
        .immediately, .nextBillCycle,
    ]
}
