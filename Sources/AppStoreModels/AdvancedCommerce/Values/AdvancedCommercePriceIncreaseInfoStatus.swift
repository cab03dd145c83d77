/// The state of a price increase for an Advanced Commerce subscription item.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommercePriceIncreaseInfoStatus: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The increase is scheduled.
    public static let scheduled = AdvancedCommercePriceIncreaseInfoStatus(rawValue: "SCHEDULED")

    /// The increase awaits the customer's consent.
    public static let pending = AdvancedCommercePriceIncreaseInfoStatus(rawValue: "PENDING")

    /// The customer accepted the increase.
    public static let accepted = AdvancedCommercePriceIncreaseInfoStatus(rawValue: "ACCEPTED")

    public static let known: [AdvancedCommercePriceIncreaseInfoStatus] = [
        .scheduled, .pending, .accepted,
    ]
}
