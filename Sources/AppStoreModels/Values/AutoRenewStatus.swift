/// Whether an auto-renewable subscription renews at the end of its period (`autoRenewStatus`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AutoRenewStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Auto-renewal is off.
    public static let off = AutoRenewStatus(rawValue: 0)

    /// Auto-renewal is on.
    public static let on = AutoRenewStatus(rawValue: 1)

    public static let known: [AutoRenewStatus] = [
        .off, .on,
    ]
}
