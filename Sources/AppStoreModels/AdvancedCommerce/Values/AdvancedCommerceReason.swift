/// Why an Advanced Commerce subscription item changes.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An upgrade.
    public static let upgrade = AdvancedCommerceReason(rawValue: "UPGRADE")

    /// A downgrade.
    public static let downgrade = AdvancedCommerceReason(rawValue: "DOWNGRADE")

    /// An offer is applied.
    public static let applyOffer = AdvancedCommerceReason(rawValue: "APPLY_OFFER")

    public static let known: [AdvancedCommerceReason] = [
        .upgrade, .downgrade, .applyOffer,
    ]
}
